/**
 * The lab models the extension host has parsed, by file: the Labs, Consoles
 * and topology views load the same lab at each refresh, and a 2,000-node lab
 * takes up to a second to parse, so a text already parsed is not parsed again.
 */
import type * as labParse from '../../common/lab/parse/parse';
import type { LabDocument } from '../../common/lab/model/types';

/** Labs kept; the views show every lab of the workspace, commands touch one or two. */
const KEPT = 16;

export class LabParses {
  /** By URI, least recently used first. */
  private readonly parsed = new Map<string, { text: string; doc: LabDocument }>();

  /** The model of `text`, the lab file at `uri` as the user sees it. */
  parse(uri: string, text: string): LabDocument {
    const cached = this.parsed.get(uri);
    this.parsed.delete(uri);
    let doc = cached?.text === text ? cached.doc : undefined;
    if (doc === undefined) {
      // Required on first use: the YAML parser behind it is slow to load, and activation does not need it.
      const { parseLab } = require('../../common/lab/parse/parse') as typeof labParse;
      doc = parseLab(text);
    }
    this.parsed.set(uri, { text, doc });
    if (this.parsed.size > KEPT) this.parsed.delete(this.parsed.keys().next().value as string);
    return doc;
  }
}
