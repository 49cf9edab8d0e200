/**
 * The last lab document each session sent, parsed. Editors send the whole text
 * on every keystroke; when the new text differs from the last one in a single
 * stretch, only that stretch is re-read (updateLab), so completion stays fast
 * on labs with thousands of nodes.
 */
import { parseLab, updateLab } from '../../common/lab/parse/parse';
import type { LabDocument } from '../../common/lab/model/types';
import { documentLimitProblem } from '../../common/project-files/document-limits';
import { DocumentRefused } from './document-limits';

export class DocumentCache {
  private last: LabDocument | undefined;

  /** Throws DocumentRefused for a document over the agent's nesting or alias limits (common/project-files/document-limits.ts). */
  parse(text: string): LabDocument {
    if (this.last?.text === text) return this.last;
    const problem = documentLimitProblem(text);
    if (problem) throw new DocumentRefused(problem);
    const stretch = this.last && text.length > 4096 ? changedStretch(this.last.text, text) : undefined;
    let doc: LabDocument;
    if (this.last && stretch && stretch.newEnd - stretch.start <= text.length / 2) {
      doc = updateLab(this.last, {
        start: stretch.start,
        end: stretch.oldEnd,
        text: text.slice(stretch.start, stretch.newEnd),
      });
    } else {
      // A small or mostly different document: the old model is let go before the new one is read, not held beside it.
      this.last = undefined;
      doc = parseLab(text);
    }
    this.last = doc;
    return doc;
  }
}

/** The differing stretch of two texts: after their common prefix and before their common suffix. */
function changedStretch(old: string, text: string): { start: number; oldEnd: number; newEnd: number } {
  let start = 0;
  const max = Math.min(old.length, text.length);
  while (start < max && old.charCodeAt(start) === text.charCodeAt(start)) start++;
  let oldEnd = old.length;
  let newEnd = text.length;
  while (oldEnd > start && newEnd > start && old.charCodeAt(oldEnd - 1) === text.charCodeAt(newEnd - 1)) {
    oldEnd--;
    newEnd--;
  }
  return { start, oldEnd, newEnd };
}
