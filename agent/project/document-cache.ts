/**
 * The last lab document each session sent, parsed. Editors send the whole text
 * on every keystroke; when the new text differs from the last one in a single
 * stretch, only that stretch is re-read (updateLab), so completion stays fast
 * on labs with thousands of nodes.
 */
import { parseLab, updateLab } from '../../common/lab/parse';
import type { LabDocument } from '../../common/lab/types';
import { documentLimitProblem } from '../../common/project/document-limits';
import { DocumentRefused } from './document-limits';

export class DocumentCache {
  private last: LabDocument | undefined;

  /** Throws DocumentRefused for a document over the agent's nesting or alias limits (common/project/document-limits.ts). */
  parse(text: string): LabDocument {
    const last = this.last;
    let doc: LabDocument;
    if (last?.text === text) return last;
    const problem = documentLimitProblem(text);
    if (problem) throw new DocumentRefused(problem);
    if (last && text.length > 4096) {
      // The differing stretch: after the common prefix and before the common suffix.
      const old = last.text;
      let start = 0;
      const max = Math.min(old.length, text.length);
      while (start < max && old.charCodeAt(start) === text.charCodeAt(start)) start++;
      let oldEnd = old.length;
      let newEnd = text.length;
      while (oldEnd > start && newEnd > start && old.charCodeAt(oldEnd - 1) === text.charCodeAt(newEnd - 1)) {
        oldEnd--;
        newEnd--;
      }
      doc = updateLab(last, { start, end: oldEnd, text: text.slice(start, newEnd) });
    } else {
      doc = parseLab(text);
    }
    this.last = doc;
    return doc;
  }
}
