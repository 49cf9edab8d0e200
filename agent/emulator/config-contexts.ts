/**
 * Router configs as contexts, the way FRR's reload tool (and IOS-style CLIs)
 * read them: a top-level line followed by indented lines opens a context
 * (`interface eth1`, `router ospf`, nested `address-family …`); every other
 * top-level line stands alone. A config is then a set of paths (context
 * headers, then the line), so two configs compare without caring about
 * order, separators (`!`, `exit`, `end`) or the headers FRR prints.
 *
 * Used to tell console changes from formatting (running config against the
 * one the node booted into) and to write those changes into the user's own
 * file line by line, keeping its order, comments and indentation.
 */

/** One config statement with the context headers above it; the last entry is the statement. */
export type ConfigPath = readonly string[];

export interface ConfigDelta {
  add: ConfigPath[];
  remove: ConfigPath[];
}

/** Lines that carry no configuration: separators, context ends and FRR's banner. */
const NOISE =
  /^(!.*|#.*|end|exit|exit-address-family|exit-vrf|exit-vnc|quit|frr version .*|frr defaults .*|Building configuration\.\.\.|Current configuration:?)$/;

interface ParsedLine {
  /** Index of the line in the text. */
  index: number;
  indent: number;
  path: ConfigPath;
}

interface Parsed {
  lines: string[];
  statements: ParsedLine[];
  /** Indentation is ambiguous (tabs mixed with spaces): the text cannot be edited line by line. */
  ambiguous: boolean;
}

const key = (path: ConfigPath): string => path.join('\u0000');

function parse(text: string): Parsed {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const statements: ParsedLine[] = [];
  const stack: { indent: number; text: string }[] = [];
  let ambiguous = false;
  lines.forEach((raw, index) => {
    const content = raw.trim();
    if (!content || NOISE.test(content)) return;
    const lead = /^[ \t]*/.exec(raw)?.[0] ?? '';
    if (lead.includes('\t')) ambiguous = true;
    const indent = lead.length;
    while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
    const path = [...stack.map((s) => s.text), content.replace(/\s+/g, ' ')];
    statements.push({ index, indent, path });
    stack.push({ indent, text: path[path.length - 1] });
  });
  return { lines, statements, ambiguous };
}

/** The statements of a config as paths, in text order, without repeats. */
export function configPaths(text: string): ConfigPath[] {
  const seen = new Set<string>();
  return parse(text).statements.flatMap((s) => {
    const k = key(s.path);
    if (seen.has(k)) return [];
    seen.add(k);
    return [s.path];
  });
}

/** What turns config `from` into config `to`, statement by statement. */
export function configDelta(from: string, to: string): ConfigDelta {
  const a = configPaths(from);
  const b = configPaths(to);
  const inA = new Set(a.map(key));
  const inB = new Set(b.map(key));
  return { add: b.filter((p) => !inA.has(key(p))), remove: a.filter((p) => !inB.has(key(p))) };
}

export function sameConfig(a: string, b: string): boolean {
  const d = configDelta(a, b);
  return d.add.length === 0 && d.remove.length === 0;
}

export function deltaSize(delta: ConfigDelta): number {
  return delta.add.length + delta.remove.length;
}

export interface MergedConfig {
  text: string;
  /** Statements to remove that the text does not contain in that form (e.g. abbreviated commands). */
  unmapped: ConfigPath[];
}

/**
 * Writes a delta into a config text in place: removed statements lose their
 * line (a removed context its whole block), added ones go after the last line
 * of their context (or, for new contexts, at the end) with the context's own
 * indentation. Everything else, comments included, stays as it was.
 * Returns undefined when the text cannot be edited by lines.
 */
export function applyConfigDelta(text: string, delta: ConfigDelta): MergedConfig | undefined {
  const parsed = parse(text);
  if (parsed.ambiguous) return undefined;
  const lines: (string | undefined)[] = [...parsed.lines];
  const byPath = new Map<string, ParsedLine>();
  for (const s of parsed.statements) if (!byPath.has(key(s.path))) byPath.set(key(s.path), s);
  const unmapped: ConfigPath[] = [];

  /** The last line index of a statement's block: itself and everything indented under it. */
  const blockEnd = (s: ParsedLine): number => {
    let end = s.index;
    for (const other of parsed.statements) {
      if (other.index <= s.index) continue;
      if (other.indent <= s.indent) break;
      end = other.index;
    }
    return end;
  };

  for (const path of delta.remove) {
    const found = byPath.get(key(path));
    if (!found) {
      // Removed together with a context removed before it: nothing left to do.
      const underRemoved = delta.remove.some((p) => p.length < path.length && p.every((h, i) => h === path[i]));
      if (!underRemoved) unmapped.push(path);
      continue;
    }
    const end = blockEnd(found);
    // A removed context takes its closing separator (`!`, `exit`) along when it has one.
    const after = end + 1 < lines.length ? parsed.lines[end + 1].trim() : undefined;
    const last = found.path.length === 1 && end > found.index && (after === '!' || after === 'exit') ? end + 1 : end;
    for (let i = found.index; i <= last; i++) lines[i] = undefined;
  }

  /** New lines to put after a given line index (-1: at the very end). */
  const inserts = new Map<number, string[]>();
  const appendAfter = (index: number, line: string) => inserts.set(index, [...(inserts.get(index) ?? []), line]);
  const indentUnit = detectIndent(parsed);
  const separator = parsed.lines.some((l) => l.trim() === '!') ? '!' : undefined;
  /** Contexts made by this delta: where their lines go. */
  const created = new Map<string, { anchor: number; depth: number }>();

  for (const path of delta.add) {
    const parentPath = path.slice(0, -1);
    const statement = path[path.length - 1];
    if (!parentPath.length) {
      // A new top-level statement: with the other top-level lines, or (a new context) at the end.
      const opensContext = delta.add.some((p) => p.length > 1 && p[0] === statement);
      if (opensContext) {
        created.set(key(path), { anchor: -1, depth: 1 });
        appendAfter(-1, statement);
      } else {
        const lastTop = [...parsed.statements].reverse().find((s) => s.path.length === 1 && blockEnd(s) === s.index);
        appendAfter(lastTop ? lastTop.index : -1, statement);
      }
      continue;
    }
    const made = created.get(key(parentPath));
    if (made) {
      appendAfter(made.anchor, indentUnit.repeat(made.depth) + statement);
      created.set(key(path), { anchor: made.anchor, depth: made.depth + 1 });
      continue;
    }
    const parent = byPath.get(key(parentPath));
    if (!parent || lines[parent.index] === undefined) {
      unmapped.push(path);
      continue;
    }
    const end = blockEnd(parent);
    const sibling = parsed.statements.find((s) => s.index > parent.index && s.index <= end);
    const indent = sibling
      ? parsed.lines[sibling.index].slice(0, sibling.indent)
      : parsed.lines[parent.index].slice(0, parent.indent) + indentUnit;
    appendAfter(end, indent + statement);
    created.set(key(path), { anchor: end, depth: indent.length / Math.max(1, indentUnit.length) + 1 });
  }

  const out: string[] = [];
  lines.forEach((line, index) => {
    if (line !== undefined) out.push(line);
    out.push(...(inserts.get(index) ?? []));
  });
  const atEnd = inserts.get(-1);
  if (atEnd?.length) {
    while (out.length && out[out.length - 1].trim() === '') out.pop();
    // Each new context is set apart by the file's separator, as the others are.
    for (const line of atEnd) {
      const last = out.length ? out[out.length - 1].trim() : undefined;
      if (separator && !/^\s/.test(line) && last !== undefined && last !== '!') out.push(separator);
      out.push(line);
    }
    if (separator) out.push(separator);
    if (/\n$/.test(text)) out.push('');
  }
  return { text: out.join('\n'), unmapped };
}

/** The indentation one level adds in this text (one space, FRR's own, when it shows none). */
function detectIndent(parsed: Parsed): string {
  const first = parsed.statements.find((s) => s.indent > 0);
  return first ? parsed.lines[first.index].slice(0, first.indent) : ' ';
}
