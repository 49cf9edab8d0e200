import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLab, updateLab } from '../../common/lab/parse/parse';
import type { LabDocument, TextChange } from '../../common/lab/model/types';
import { LabChecks, validateLabUpTo } from '../../common/lab/rules/validate';
import { generateLab } from '../support/generate-lab';
import { seededPick } from '../support/random';

/** Lines that make findings on a node, put right under its name. */
const BAD_FIELDS = [
  '    cpu: 999\n',
  '    console: foo\n',
  '    position: {x: -1, y: 0}\n',
  '    config: /etc/x\n',
  '    ram: 0\n',
];
/** Links with findings of their own. */
const BAD_LINKS = [
  '  - endpoints: [r1:Gi0/9, net1, sw2:Gi0/9]\n',
  '  - endpoints: [net1, net2]\n',
  '  - endpoints: [zz9:Gi0/0, r1:Gi0/9]\n',
  '  - endpoints: [r1:Gi0/9, r1:Gi0/9]\n',
];

/** Where each line starts, and the lines that match `pattern`. */
function linesOf(text: string, pattern: RegExp): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n', start) + 1 || text.length;
    if (pattern.test(text.slice(start, end))) found.push({ start, end });
    start = end;
  }
  return found;
}

/**
 * A random edit of the kinds a person makes while the lab stays mostly valid:
 * inside values and names, links copied (an interface used twice) and deleted,
 * endpoints naming no node and mended, bad node settings added and removed,
 * now and then a character that breaks the YAML or renames a node.
 */
function randomEdit(text: string, pick: (n: number) => number): TextChange {
  const one = <T>(items: readonly T[]): T | undefined => (items.length > 0 ? items[pick(items.length)] : undefined);
  const kind = pick(12);
  if (kind <= 2) {
    for (let tries = 0; tries < 50; tries++) {
      const p = 1 + pick(text.length);
      if (/[A-Za-z0-9]/.test(text[p - 1] ?? ''))
        return pick(2) ? { start: p, end: p, text: 'x7'[pick(2)] } : { start: p - 1, end: p, text: '' };
    }
  }
  const links = linesOf(text, /^ {2}- endpoints: \[/);
  if (kind === 3) {
    const from = one(links);
    const to = one(links);
    if (from && to) return { start: to.start, end: to.start, text: text.slice(from.start, from.end) };
  }
  if (kind === 4) {
    const line = one(links);
    if (line) return { start: line.start, end: line.end, text: '' };
  }
  if (kind === 5) {
    const line = one(links);
    if (line) {
      const at = text.indexOf('[', line.start) + 1;
      return text[at] === 'q' ? { start: at, end: at + 1, text: '' } : { start: at, end: at, text: 'q' };
    }
  }
  if (kind === 6) {
    const node = one(linesOf(text, /^ {2}[A-Za-z0-9]+:\n/));
    const bad = one(BAD_FIELDS);
    if (node && bad) return { start: node.end, end: node.end, text: bad };
  }
  if (kind === 7) {
    const field = one(linesOf(text, /^ {4}[a-z]+: /));
    if (field) return { start: field.start, end: field.end, text: '' };
  }
  if (kind === 8) {
    const line = one(links);
    const bad = one(BAD_LINKS);
    if (line && bad) return { start: line.start, end: line.start, text: bad };
  }
  if (kind === 9 && pick(4) === 0) {
    const p = pick(text.length + 1);
    return { start: p, end: p, text: one([':', '[', '"', '\t', '{', '- ']) ?? '' };
  }
  const line = one(linesOf(text, /^/));
  return line ? { start: line.start, end: line.end, text: '' } : { start: 0, end: 0, text: '#\n' };
}

/** Counts the walks over `doc`'s elements (LabDocument.forEachAsRead) made by whatever reads it. */
function countWalks(doc: LabDocument, counter: { walks: number }): void {
  const own = doc.forEachAsRead.bind(doc);
  doc.forEachAsRead = (kind, visit) => {
    counter.walks++;
    own(kind, visit);
  };
}

for (const seed of [1, 2, 3]) {
  test(`LabChecks follows replaced items without walking the lab, finding what a fresh check finds (seed ${seed})`, () => {
    const pick = seededPick(seed);
    const checks = new LabChecks();
    const limited = new LabChecks();
    const counter = { walks: 0 };
    let doc = parseLab(generateLab(120, { seed }));
    let checked: LabDocument | undefined = doc;
    let followed = 0;
    let eligible = 0;
    let skippable = 0;
    let skipped = 0;
    const codesFollowed = new Set<string>();
    const undos: TextChange[] = [];
    for (let step = 0; step < 1500; step++) {
      // Now and then the server skips versions (edits come faster than it checks; kept here, so that they can be
      // followed), or parses afresh.
      const kept: LabDocument[] = [];
      const edits = step % 10 === 9 ? 3 : 1;
      for (let e = 0; e < edits; e++) {
        kept.push(doc);
        // Half the time (and always when 20 are outstanding) the latest edit not undone is undone: the lab stays
        // near the generated one, and what an edit broke or added goes again.
        const undo = undos.length >= 20 || (undos.length > 0 && pick(2) === 0);
        const change = (undo && undos.pop()) || randomEdit(doc.text, pick);
        const text = doc.text.slice(0, change.start) + change.text + doc.text.slice(change.end);
        if (!undo)
          undos.push({
            start: change.start,
            end: change.start + change.text.length,
            text: doc.text.slice(change.start, change.end),
          });
        doc = step % 400 === 399 ? parseLab(text) : updateLab(doc, change);
        assert.equal(doc.text, text);
      }
      countWalks(doc, counter);
      // Whether every version since the one checked last replaced items only: the checks may then follow them.
      let version: LabDocument | undefined = doc;
      while (version && version !== checked) version = version.replaced?.from.deref();
      const followable: boolean = checked !== undefined && version === checked;
      if (step % 10 === 5) {
        // A version the server does not publish (the client still reads the last one): the checks only follow it.
        const before = counter.walks;
        const took = checks.follow(doc);
        assert.equal(counter.walks, before, `seed ${seed}, step ${step}: following never walks`);
        assert.ok(!took || followable, `seed ${seed}, step ${step}: followed a version that cannot be`);
        if (followable) skippable++;
        if (took) skipped++;
        // What the checks follow from now: this version, or (when they found they could not) none.
        checked = took ? doc : followable ? undefined : checked;
        continue;
      }
      const before = counter.walks;
      const found = checks.check(doc, Infinity);
      const walked = counter.walks > before;
      const context = `seed ${seed}, step ${step}`;
      assert.deepStrictEqual(found, validateLabUpTo(doc, Infinity), context);
      assert.deepStrictEqual(limited.check(doc, 7), validateLabUpTo(doc, 7), `${context}, at most 7`);
      if (followable) eligible++;
      if (!walked) {
        assert.ok(followable, `${context}: the checks did not walk a version they could not follow`);
        followed++;
        for (const finding of found.shown) codesFollowed.add(finding.code);
      }
      checked = doc;
    }
    // The versions not followed are those after a fresh parse, a change of names or sections, and those where a new
    // link uses an interface that only an unlisted link used before (its place is not kept).
    assert.ok(followed >= 0.9 * eligible, `${followed} of ${eligible} followable versions followed`);
    assert.ok(eligible >= 1000, `${eligible} of 1350 versions checked replaced items only`);
    assert.ok(skipped >= 0.9 * skippable && skippable >= 100, `${skipped} of ${skippable} versions skipped followed`);
    for (const code of ['interface-in-use', 'unknown-node', 'out-of-range', 'endpoint-count', 'missing-template'])
      assert.ok(
        codesFollowed.has(code),
        `versions followed had ${code} findings (had: ${[...codesFollowed].join(', ')})`,
      );
  });
}

test('LabChecks checks the same version again without walking it', () => {
  const doc = parseLab(generateLab(30, { seed: 4 }).replace('template: vios', 'template: vios\n    cpu: 999'));
  const checks = new LabChecks();
  const first = checks.check(doc, Infinity);
  const counter = { walks: 0 };
  countWalks(doc, counter);
  assert.deepStrictEqual(checks.check(doc, Infinity), first);
  assert.equal(counter.walks, 0);
  assert.deepStrictEqual(
    first.shown.map((d) => d.code),
    ['out-of-range'],
  );
});
