import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLab, updateLab } from '../../common/lab/parse/parse';
import type { TextChange } from '../../common/lab/model/types';
import type { LabDocument } from '../../common/lab/model/types';
import { ParsedLab } from '../../common/lab/model/document';
import { parseDocument } from 'yaml';
import { generateLab } from '../support/generate-lab';
import { shiftElement } from '../../common/lab/parse/shift';
import { TypingSimulator, withUnclosedBracket } from '../support/typing';
import { observe } from '../support/observe-lab';
import { buildOutline, sameEntry, sameItem, type OutlineEntry, type OutlineItem } from '../../common/lab/parse/outline';
import { pieceOutline } from '../../common/lab/parse/piece-outline';
import { parseYaml } from '../../common/lab/parse/yaml-text';

function apply(text: string, change: TextChange): string {
  return text.slice(0, change.start) + change.text + text.slice(change.end);
}

function assertSameAsFullParse(updated: LabDocument, context: string): void {
  assert.deepStrictEqual(observe(updated), observe(parseLab(updated.text)), context);
}

/** Elements found by their place (countAsRead, elementAsRead) are those the lists hold, in order. */
function assertPlacesAgree(doc: LabDocument, context: string): void {
  for (const kind of ['nodes', 'networks', 'links'] as const) {
    const listed = doc[kind];
    assert.equal(doc.countAsRead(kind), listed.length, `${context}: how many ${kind}`);
    const placed = listed.map((_, n) => {
      const found = doc.elementAsRead(kind, n);
      return found && shiftElement(kind, found.element, found.delta, found.indexShift);
    });
    assert.deepStrictEqual(placed, listed, `${context}: ${kind} by their place`);
    assert.equal(doc.elementAsRead(kind, listed.length), undefined, `${context}: past the last of the ${kind}`);
  }
}

/**
 * Each piece that keeps no value (piece-outline.ts) and lies outside the
 * unsettled regions reads back, from its slice, the outline the `yaml` package
 * reads at its place in the whole text. Returns how many were compared.
 */
function assertOutlinesReadBack(doc: LabDocument, context: string): number {
  assert.ok(doc instanceof ParsedLab);
  const { layout } = doc;
  const whole = buildOutline(parseYaml(doc.text).contents, { src: doc.text, base: 0, sawAlias: false });
  if (whole?.kind !== 'map') return 0;
  const placedIn = (list: readonly (OutlineEntry | OutlineItem)[], start: number) =>
    list.find((o) => o.range.start === start);
  let compared = 0;
  for (const piece of layout.pieces) {
    if (piece.valueKept) continue;
    if (layout.unsettled?.some((r) => r.start < piece.end && piece.start < r.end)) continue;
    const at = piece.start + piece.indent;
    const section = layout.sections[piece.section];
    const sectionEntry = whole.entries.find((e) => e.key === section.key && e.range.start <= at && at <= e.range.end);
    const value = sectionEntry?.value;
    const expected =
      piece.kind === 'section'
        ? placedIn(whole.entries, at)
        : value?.kind === 'map'
          ? placedIn(value.entries, at)
          : value?.kind === 'seq'
            ? placedIn(value.items, at)
            : undefined;
    const where = `${context}: the ${piece.kind} piece at ${piece.start}`;
    assert.ok(expected, `${where} is where the whole text reads one`);
    const { outline, delta } = pieceOutline(piece, doc.source);
    const same =
      'key' in outline
        ? 'key' in expected && sameEntry(outline, delta, expected as OutlineEntry, 0)
        : sameItem(outline, delta, expected, 0);
    assert.ok(same, `${where} reads back what the whole text reads there`);
    compared++;
  }
  return compared;
}

/** Applies `change` by updateLab, checks the text against one applied independently, and compares with a full parse. */
function updateAndCompare(doc: LabDocument, change: TextChange, context: string): LabDocument {
  const expected = apply(doc.text, change);
  const updated = updateLab(doc, change);
  assert.equal(updated.text, expected, `${context}: the text`);
  assertSameAsFullParse(updated, context);
  assertPlacesAgree(updated, context);
  assertOutlinesReadBack(updated, context);
  return updated;
}

/** How a version was read (see ParsedLab.readBy). */
function readBy(doc: LabDocument): string {
  assert.ok(doc instanceof ParsedLab);
  return doc.readBy;
}

/** Deterministic pseudo-random numbers for reproducible edit sequences. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
}

const NEW_LINES = [
  '    cpu: 3\n',
  '  n99:\n    template: vios\n',
  '  - endpoints: [r1:Gi0/7, sw2:Gi3/3]\n',
  '    foo: bar\n',
  '    position: {x: 1, y: 2}\n',
  '# comment\n',
  '\n',
  '      - r1:\n',
  'defaults:\n  cpu: 4\n',
  '    console: vnc\n',
];
const BREAKING = [':', '[', '"', '\t', '{', '#', '- ', ' ', '\n', ']', "'", '&x ', '*x', '? ', '|', '---\n', '\n...\n'];
const WORD = 'abcxyz0123456789';

/** A random edit of one of several kinds: inside words, whole lines, breaking characters, half-typed links. */
function randomChange(text: string, pick: (n: number) => number): TextChange {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const kind = pick(10);
  if (kind <= 3) {
    for (let tries = 0; tries < 50; tries++) {
      const p = 1 + pick(text.length);
      if (/[A-Za-z0-9]/.test(text[p - 1] ?? ''))
        return pick(3) ? { start: p, end: p, text: WORD[pick(WORD.length)] } : { start: p - 1, end: p, text: '' };
    }
  }
  if (kind === 4) {
    const start = lineStarts[pick(lineStarts.length)];
    return { start, end: start, text: NEW_LINES[pick(NEW_LINES.length)] };
  }
  if (kind === 5) {
    const i = pick(lineStarts.length);
    return { start: lineStarts[i], end: i + 1 < lineStarts.length ? lineStarts[i + 1] : text.length, text: '' };
  }
  if (kind === 6) {
    const p = pick(text.length + 1);
    return { start: p, end: p, text: BREAKING[pick(BREAKING.length)] };
  }
  if (kind === 7) {
    const colon = text.indexOf(':G', pick(text.length));
    if (colon > 0) {
      let end = colon + 1;
      while (end < text.length && !',]\n'.includes(text[end])) end++;
      return { start: colon + 1, end, text: '' };
    }
  }
  if (kind === 8) {
    const tails = ['  - endpoints: [r1:', '  - endpoints: [r1:]\n', '  - endpoints:\n      - r1:\n', 'x', '\n'];
    return { start: text.length, end: text.length, text: tails[pick(tails.length)] };
  }
  const p = pick(text.length + 1);
  return { start: p, end: Math.min(text.length, p + pick(4)), text: '' };
}

test('updateLab equals a full parse after each of many random edits (and after undoing them)', () => {
  let compared = 0;
  let broken = 0;
  for (let round = 0; round < 5; round++) {
    const pick = random(round + 1);
    let doc = parseLab(generateLab(10 + round * 3, { seed: round + 1 }));
    for (let step = 0; step < 100; step++) {
      const change = randomChange(doc.text, pick);
      const undo = {
        start: change.start,
        end: change.start + change.text.length,
        text: doc.text.slice(change.start, change.end),
      };
      for (const edit of pick(2) ? [change, undo] : [change]) {
        doc = updateAndCompare(doc, edit, `round ${round} step ${step}: ${JSON.stringify(edit)}`);
        compared++;
        if (doc.syntaxErrors.length > 0) broken++;
      }
    }
  }
  // Every edit is compared, broken ones included, and the random edits do break the text often.
  assert.ok(compared >= 500, `${compared} edits compared`);
  assert.ok(broken >= 100, `${broken} of them left syntax errors`);
});

test('an edit inside one node re-reads only that node: the others are the same objects', () => {
  const previous = parseLab(generateLab(40, { seed: 3 }));
  const last = previous.nodes[previous.nodes.length - 1];
  const template = last.fields.template;
  assert.ok(template, 'the last node names its template');
  const at = template.range.end;
  const updated = updateLab(previous, { start: at, end: at, text: 'x' });
  assert.equal(updated.nodes[0], previous.nodes[0]);
  assert.equal(updated.nodes[previous.nodes.length - 2], previous.nodes[previous.nodes.length - 2]);
  assert.equal(updated.nodes[previous.nodes.length - 1].resolved.template, `${last.resolved.template}x`);
  assertSameAsFullParse(updated, 'edit in the last node');
  // Everything after the edit moved by one character.
  const link = updated.links[0];
  assert.equal(link.range.start, previous.links[0].range.start + 1);
});

test('an edit inside one node takes the census of the version before (no pass over every name), unless names change', () => {
  let doc = parseLab(
    `description: a lab\n${generateLab(40, { seed: 3 }).replace(/^description: .*\n/m, '')}tests: []\n`,
  );
  const names = doc.namesOf('nodes');
  const node = doc.nodes[20];
  const template = node.fields.template;
  assert.ok(template, 'the node names its template');
  // A value typed and replaced: the same names, the same census (its sets are the same objects).
  for (const change of [
    { start: template.range.end, end: template.range.end, text: 'x' },
    { start: template.range.end, end: template.range.end + 1, text: 'y' },
    { start: template.range.end, end: template.range.end + 1, text: '' },
  ]) {
    doc = updateAndCompare(doc, change, `${JSON.stringify(change)} in node ${node.name}`);
    assert.equal(readBy(doc), 'piece');
    assert.equal(doc.namesOf('nodes'), names, 'the census of the version before');
  }
  // A node renamed to the name of another: a new census, which drops the repeat.
  const other = doc.nodes[3].name;
  const renamed = updateAndCompare(
    doc,
    { start: doc.nodes[20].nameRange.start, end: doc.nodes[20].nameRange.end, text: other },
    'a node renamed to an existing name',
  );
  assert.notEqual(renamed.namesOf('nodes'), names);
  assert.ok(renamed.formatIssues.some((issue) => issue.code === 'duplicate-key'));
  // And back: the repeat's issue goes, and an edit after it moves the issues that remain.
  const back = updateAndCompare(
    renamed,
    { start: renamed.nodes[20].nameRange.start, end: renamed.nodes[20].nameRange.end, text: 'again' },
    'renamed back',
  );
  const at = back.nodes[30].fields.template?.range.end ?? 0;
  updateAndCompare(back, { start: at, end: at, text: 'z' }, 'an edit after a rename');
});

test('an edit of a top-level entry, or one a window reads with the entry before the first node, keeps the census', () => {
  const lab = generateLab(40, { seed: 5 });
  assert.ok(/\ndefaults:[^]*\nnodes:\n {2}\S/.test(lab), 'defaults come right before the first node');
  let doc = parseLab(lab);
  const names = doc.namesOf('nodes');
  // A word typed on a new line under the first node's key, where YAML reads it as that node's value: a window,
  // which re-reads `defaults` as its context.
  let at = lab.indexOf('\n', lab.indexOf('\nnodes:') + 1 + '\nnodes:'.length);
  for (const char of '\n    image') {
    doc = updateAndCompare(doc, { start: at, end: at, text: char }, `typing ${JSON.stringify(char)}`);
    at += 1;
  }
  assert.equal(readBy(doc), 'window');
  assert.ok(doc.syntaxErrors.length > 0);
  assert.equal(doc.namesOf('nodes'), names, 'the census of the version before');
  // The lab's name: a top-level entry alone.
  const name = doc.text.indexOf('\n', doc.text.indexOf('name: '));
  doc = updateAndCompare(doc, { start: name, end: name, text: '2' }, 'the name edited');
  assert.equal(readBy(doc), 'piece');
  assert.equal(doc.namesOf('nodes'), names, 'the census of the version before');
});

test('a link typed after the first one, read by a window with the last network, keeps the census', () => {
  const lab = generateLab(40, { seed: 5 });
  let doc = parseLab(lab);
  const names = doc.namesOf('nodes');
  let at = lab.indexOf('\n', lab.indexOf('  - endpoints: [', lab.indexOf('\nlinks:\n')));
  const kept: string[] = [];
  for (const char of '\n  - endpoints: [r1:Gi0/7, sw2:Gi3/3]') {
    doc = updateAndCompare(doc, { start: at, end: at, text: char }, `typing ${JSON.stringify(char)}`);
    at += 1;
    // `  -` (a new item before the second link) is read by a window from the last network on.
    if (char === '-') assert.equal(readBy(doc), 'window');
    if (doc.namesOf('nodes') !== names) kept.push(char);
  }
  assert.deepEqual(kept, [], 'keystrokes after which the census was made afresh');
  assert.equal(doc.links.length, parseLab(lab).links.length + 1);
});

test('typing after a tab at the start of a line of the first node (the line is set aside): equal to a full parse', () => {
  const lab = generateLab(30, { seed: 8 });
  const at = lab.indexOf('\n', lab.indexOf('\nnodes:') + 1 + '\nnodes:'.length) + 1;
  let doc = updateAndCompare(parseLab(lab), { start: at, end: at, text: '\t' }, 'the tab typed');
  // The line is set aside: one error on it, and the rest of the lab reads as before.
  assert.deepEqual(
    doc.syntaxErrors.map((e) => [e.code, e.range.start]),
    [['tab-indentation', at]],
  );
  assert.equal(doc.nodes.length, 30);
  const key = doc.text.indexOf('\n', doc.text.indexOf('    ethernet: ', doc.text.length >> 3));
  [...'\n    cpu: 2'].forEach((char, i) => {
    doc = updateAndCompare(doc, { start: key + i, end: key + i, text: char }, `typing ${JSON.stringify(char)}`);
  });
  doc = updateAndCompare(doc, { start: at, end: at + 1, text: '' }, 'the tab taken out');
  assert.equal(doc.syntaxErrors.length, 0);
});

test('typing a new link at the end, character by character, stays equal to a full parse and keeps the nodes', () => {
  let doc = parseLab(generateLab(30, { seed: 5 }));
  const nodes = doc.nodes;
  const typed = '  - endpoints: [r1:Gi0/6, sw2:Gi2/1]\n';
  for (const char of typed) {
    doc = updateLab(doc, { start: doc.text.length, end: doc.text.length, text: char });
    assertSameAsFullParse(doc, `after typing ${JSON.stringify(char)}`);
    assert.equal(doc.nodes[0], nodes[0], 'nodes before the edit are not read again');
  }
  const link = doc.links[doc.links.length - 1];
  assert.deepEqual(
    link.endpoints.map((e) => e.text),
    ['r1:Gi0/6', 'sw2:Gi2/1'],
  );
});

test('typing a new link in the middle of the list, through broken states, stays equal to a full parse', () => {
  const generated = parseLab(generateLab(40, { seed: 6 }));
  // A later link with an issue: its path must follow the renumbering too.
  const later = generated.links[30].range.end;
  let doc = parseLab(`${generated.text.slice(0, later)}\n    speed: fast${generated.text.slice(later)}`);
  const nodes = doc.nodes;
  let at = doc.links[19].range.end;
  for (const char of '\n  - endpoints: [r1:Gi0/6, sw2:Gi2/1]') {
    doc = updateLab(doc, { start: at, end: at, text: char });
    at += char.length;
    assertSameAsFullParse(doc, `after typing ${JSON.stringify(char)}`);
    assert.equal(doc.nodes[0], nodes[0], 'nodes before the edit are not read again');
    doc.links.forEach((link, index) => assert.equal(link.index, index, 'links after the new one are renumbered'));
  }
  assert.deepEqual(
    doc.links[20].endpoints.map((e) => e.text),
    ['r1:Gi0/6', 'sw2:Gi2/1'],
  );
  assert.deepEqual(
    doc.formatIssues.map((issue) => issue.path),
    [['links', 31, 'speed']],
  );
});

test('while a link is half-typed, the endpoint being typed names its node', () => {
  let doc = parseLab(generateLab(10, { seed: 2 }));
  for (const char of '  - endpoints: [r1:')
    doc = updateLab(doc, { start: doc.text.length, end: doc.text.length, text: char });
  const endpoint = doc.links[doc.links.length - 1].endpoints[0];
  assert.deepEqual([endpoint.node, endpoint.interface], ['r1', '']);
  assert.deepEqual(endpoint.interfaceRange, { start: doc.text.length, end: doc.text.length });
  assertSameAsFullParse(doc, 'half-typed');
});

test('edits that change how the rest of the text reads are not read as one piece', () => {
  const text = 'name: x\ndescription: y\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: iol\n';
  const nodes = 'nodes:\n  r1:\n    template: vios\n  r2:\n    template: iol\n';
  // What each edit makes of the text, and whether a window (re-read until back in step) or only a full parse reads it.
  const cases: [string, TextChange, string, string][] = [
    [
      'a document end marker after the first entry',
      { start: text.indexOf('\n'), end: text.indexOf('\n'), text: '\n...' },
      `name: x\n...\ndescription: y\n${nodes}`,
      'whole',
    ],
    [
      'a node key moved left into the section level',
      { start: text.indexOf('    template: iol'), end: text.indexOf('    template: iol') + 2, text: '' },
      'name: x\ndescription: y\nnodes:\n  r1:\n    template: vios\n  r2:\n  template: iol\n',
      'window',
    ],
    [
      'a new node typed inside another one',
      { start: text.indexOf('  r2:'), end: text.indexOf('  r2:'), text: '  r3:\n' },
      'name: x\ndescription: y\nnodes:\n  r1:\n    template: vios\n  r3:\n  r2:\n    template: iol\n',
      'window',
    ],
    [
      'a quote opened at the start of a top-level key',
      { start: text.indexOf('description'), end: text.indexOf('description') + 2, text: '"' },
      `name: x\n"scription: y\n${nodes}`,
      'window',
    ],
  ];
  for (const [what, change, expected, reading] of cases) {
    const updated = updateAndCompare(parseLab(text), change, what);
    assert.equal(updated.text, expected, what);
    assert.equal(readBy(updated), reading, `${what}: read by`);
  }
  // The same reading tells an edit that stays inside one piece.
  const within = updateAndCompare(
    parseLab(text),
    { start: text.indexOf('iol'), end: text.indexOf('iol'), text: 'x' },
    'x',
  );
  assert.equal(readBy(within), 'piece');
});

test('lines set aside inside one piece are read by that piece alone, as a full parse reads them', () => {
  const text = 'name: x\nnodes:\n  r1:\n    template: vios\n    ethernet: 4\n  r2:\n    template: iol\n';
  // An unclosed quote would run into the next node, a tab in indentation would end the node there, and a key
  // before its colon would take the next keys as its children: each line is set aside (yaml-text.ts), and
  // nothing around it reads differently.
  const template = text.indexOf('    template: vios');
  for (const [what, change] of [
    ['an unclosed quote', { start: text.indexOf('vios'), end: text.indexOf('vios'), text: '"' }],
    ['a tab in the indentation', { start: template, end: template + 1, text: '\t' }],
  ] as const) {
    const updated = updateAndCompare(parseLab(text), change, what);
    assert.equal(readBy(updated), 'piece', `${what}: read by`);
    assert.equal(updated.syntaxErrors.length, 1, what);
  }
  let doc: LabDocument = parseLab(text);
  let at = text.indexOf('  r2:');
  for (const key of ['\n', ...'    cpu: 2']) {
    // Typed at the end of r1, each keystroke (`    c`, `    cp`, … before the colon) stays in its piece.
    doc = updateAndCompare(doc, { start: at - 1, end: at - 1, text: key }, `typing ${JSON.stringify(key)}`);
    assert.equal(readBy(doc), 'piece', `typing ${JSON.stringify(key)}: read by`);
    at += key.length;
  }
  assert.equal(doc.syntaxErrors.length, 0);
  assert.equal(doc.nodes[0].fields.cpu?.value, 2);
});

test('broken text that spreads to the end of the lab is read as a full parse reads it, keystroke by keystroke', () => {
  const links = Array.from({ length: 9 }, (_, i) => `  - endpoints: [r1:Gi0/${i}, r2:Gi0/${i}]\n`).join('');
  const text = `name: t\ndefaults:\n  ram: 1024\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: vios\nlinks:\n${links}`;
  const typed = (what: string) => {
    let doc = parseLab(text);
    let at = text.indexOf('1024') + 4;
    for (const char of what) {
      doc = updateLab(doc, { start: at, end: at, text: char });
      at += 1;
      assertSameAsFullParse(doc, `after typing ${JSON.stringify(char)} of ${JSON.stringify(what)}`);
    }
    assert.equal(doc.text, text.replace('1024', `1024${what}`));
    return [doc.links.length, doc.syntaxErrors.length];
  };
  // Found by an outside fuzz run: the last `}` is stray, which the yaml package reads as breaking every line after it;
  // reading the edit alone gave 9 links and 2 errors. Its line is now set aside: 9 links and that line's error.
  assert.deepEqual(typed('{a: [b, {c: d}]}'), [9, 1]);
  // A list item between the top level and the defaults' keys: the rest of the lab reads as broken, as in a full parse.
  assert.deepEqual(typed('\n - x'), [0, 3]);
});

test('an edit that changes how the piece before it reads is read by a window that starts earlier', () => {
  // Found by lsp-pressure: a pasted (or coalesced) edit whose first line is set aside lets its next line carry on the
  // link before it, so the errors start before the edited piece; the window read refused that and a full parse of
  // the 10,000-node lab followed, at each such keystroke.
  const links = Array.from({ length: 9 }, (_, i) => `  - endpoints: [r1:Gi0/${i}, r2:Gi0/${i}]\n`).join('');
  const text = `name: t\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: vios\nlinks:\n  - endpoints:x\n${links}`;
  const at = text.indexOf('\n', text.indexOf('[r1:Gi0/0'));
  const updated = updateAndCompare(
    parseLab(text),
    { start: at, end: at, text: '}\n    cpu: 2' },
    'a stray } and a line under it',
  );
  assert.ok(updated.syntaxErrors[0].range.start < at - 30, 'the errors start in the link before the edited one');
  assert.equal(readBy(updated), 'window');
});

test('an edit of the defaults resolves every node again', () => {
  const previous = parseLab('defaults:\n  ram: 512\nnodes:\n  r1:\n    template: vios\n  r2:\n    template: iol\n');
  const at = previous.text.indexOf('512');
  const updated = updateLab(previous, { start: at, end: at + 3, text: '2048' });
  assert.deepEqual(
    updated.nodes.map((n) => n.resolved.ram),
    [2048, 2048],
  );
  assertSameAsFullParse(updated, 'defaults edit');
  // Defaults written last: editing them still reaches the nodes above, editing a node keeps them.
  const last = parseLab('nodes:\n  r1:\n    template: vios\n  r2:\n    template: iol\ndefaults:\n  ram: 512\n');
  const edited = updateLab(last, { start: last.text.indexOf('512'), end: last.text.indexOf('512') + 1, text: '7' });
  assert.deepEqual(
    edited.nodes.map((n) => n.resolved.ram),
    [712, 712],
  );
  const renamed = updateLab(edited, { start: edited.text.indexOf('iol'), end: edited.text.indexOf('iol'), text: 'x' });
  assert.deepEqual(
    renamed.nodes.map((n) => [n.resolved.template, n.resolved.ram]),
    [
      ['vios', 712],
      ['xiol', 712],
    ],
  );
  assertSameAsFullParse(renamed, 'node edit above the defaults');
});

test('a window that re-reads the defaults unchanged resolves no node again', () => {
  // A space typed into the first node's indentation: the window starts at the piece before it, the defaults.
  const previous = parseLab(generateLab(40, { seed: 3 }));
  assert.ok(previous.text.indexOf('\ndefaults:') < previous.text.indexOf('\nnodes:'), 'the defaults come first');
  const at = previous.text.indexOf('\n', previous.text.indexOf('\nnodes:') + 1 + '\nnodes:'.length) + 1;
  const updated = updateLab(previous, { start: at, end: at, text: ' ' });
  assert.equal(readBy(updated), 'window');
  assertSameAsFullParse(updated, 'a space in the first node');
  const asRead = (doc: LabDocument): unknown[] => {
    const nodes: unknown[] = [];
    assert.ok(doc instanceof ParsedLab);
    doc.forEachAsRead('nodes', (node) => nodes.push(node));
    return nodes;
  };
  const before = asRead(previous);
  const after = asRead(updated);
  // Every node the window did not re-read (it reads a few) is the object read before: none was resolved again.
  const kept = after.filter((node) => before.includes(node)).length;
  assert.ok(kept >= before.length - 8, `${kept} of ${before.length} nodes kept`);
  // Changing a default does resolve them all again.
  const ram = updated.text.indexOf('ram: ', updated.text.indexOf('\ndefaults:'));
  if (ram >= 0 && ram < updated.text.indexOf('\nnodes:')) {
    const changed = updateLab(updated, { start: ram + 5, end: ram + 5, text: '1' });
    assertSameAsFullParse(changed, 'a default changed');
  }
});

test('pieces read where no error was keep no values and read them back; those an error may reach keep theirs', () => {
  const doc = parseLab(generateLab(40, { seed: 5 }));
  assert.ok(doc instanceof ParsedLab);
  const pieces = [...doc.layout.pieces];
  assert.ok(pieces.every((piece) => !piece.valueKept));
  assert.equal(assertOutlinesReadBack(doc, 'a valid lab'), pieces.length);
  const at = doc.text.indexOf('endpoints: [') + 'endpoints: ['.length;
  const broken = updateAndCompare(doc, { start: at, end: at, text: '[' }, 'a bracket typed into a link');
  assert.ok(broken instanceof ParsedLab && broken.layout.unsettled);
  const near = [...broken.layout.pieces].filter((p) =>
    broken.layout.unsettled?.some((r) => r.start < p.end && p.start < r.end),
  );
  assert.ok(near.length > 0 && near.every((piece) => piece.valueKept));
});

test('updateLab leaves the previous document as it was', () => {
  const previous = parseLab(generateLab(20, { seed: 9 }));
  const before = observe(previous);
  updateLab(previous, { start: 60, end: 60, text: 'x' });
  updateLab(previous, { start: previous.text.length, end: previous.text.length, text: '  - endpoints: [r1:' });
  assert.deepStrictEqual(observe(previous), before);
});

test('edits with offsets out of range are clamped, never thrown', () => {
  const previous = parseLab('name: t\n');
  const cases: [TextChange, string][] = [
    [{ start: -5, end: 2, text: 'x' }, 'xme: t\n'],
    [{ start: 3, end: 1, text: 'y' }, 'namye: t\n'],
    [{ start: 100, end: 200, text: '\nnodes: {}' }, 'name: t\n\nnodes: {}'],
    [{ start: Number.NaN, end: Number.NaN, text: 'z' }, 'zname: t\n'],
    [{ start: 0, end: 0, text: undefined as unknown as string }, 'name: t\n'],
  ];
  for (const [change, expected] of cases) {
    const updated = updateLab(previous, change);
    assert.equal(updated.text, expected, JSON.stringify(change));
    assert.deepStrictEqual(observe(updated), observe(parseLab(expected)), JSON.stringify(change));
  }
});

/** Ways to break a generated lab near its top that leave the rest readable. */
const BROKEN_STARTS: [string, (text: string) => string][] = [
  ['an unclosed [ in the first node', (text) => text.replace('template: ', 'template: [')],
  ['an unclosed { in a position', (text) => text.replace('position: {', 'position: {{')],
  ['an unclosed quote in a template', (text) => text.replace('template: ', 'template: "')],
  ['a half-typed key', (text) => text.replace('    template: ', '    templ\n    template: ')],
  ['a tab in the first node', (text) => text.replace('    template: ', '\ttemplate: ')],
];

test('in a broken document, updateLab equals a full parse after each of many random edits', () => {
  let broken = 0;
  BROKEN_STARTS.forEach(([what, breakIt], round) => {
    const pick = random(round + 101);
    let doc = parseLab(breakIt(generateLab(12 + round * 2, { seed: round + 7 })));
    assert.ok(doc.syntaxErrors.length > 0, `${what}: the start is broken`);
    for (let step = 0; step < 80; step++) {
      doc = updateAndCompare(doc, randomChange(doc.text, pick), `${what}, step ${step}`);
      if (doc.syntaxErrors.length > 0) broken++;
    }
  });
  // All 400 edits are compared; most of them leave the text broken.
  assert.ok(broken >= 300, `${broken} of 400 edits compared with syntax errors`);
});

test('with an unclosed bracket at the top, an edit further down re-reads only around the edit', () => {
  const generated = generateLab(60, { seed: 8 });
  let doc = parseLab(generated.replace('template: ', 'template: ['));
  assert.ok(doc.syntaxErrors.length > 0);
  const nodes = doc.nodes;
  const middle = nodes[30];
  // A digit changed, a new key typed character by character, and a new node pasted, in the middle of the lab.
  const digit = middle.fields.ethernet?.range.start ?? assert.fail('the node has an ethernet count');
  doc = updateLab(doc, { start: digit, end: digit + 1, text: '7' });
  assertSameAsFullParse(doc, 'digit');
  let at = doc.nodes[30].range.end;
  for (const char of '\n    cpu: 4') {
    doc = updateLab(doc, { start: at, end: at, text: char });
    at += char.length;
    assertSameAsFullParse(doc, `after typing ${JSON.stringify(char)}`);
  }
  const line = doc.text.indexOf('\n', doc.nodes[20].range.start) + 1;
  doc = updateLab(doc, { start: line, end: line, text: '  n900:\n    template: vios\n' });
  assertSameAsFullParse(doc, 'pasted node');
  assert.equal(doc.nodes[0], nodes[0], 'the broken node is not read again');
  assert.equal(doc.nodes[10], nodes[10], 'nodes between the error and the edits are not read again');
  assert.ok(doc.syntaxErrors.length > 0, 'the unclosed bracket is still reported');
});

/** Lines typed at the end of a line, character by character: a new key, node or link, and half-typed ones. */
const TYPED_LINES = [
  '\n    cpu: 2',
  '\n    console: vnc',
  '\n  n900:\n    template: vios',
  '\n  - endpoints: [r1:Gi0/7, sw2:Gi3/3]',
  '\n  - endpoints: [r1:',
  '\n  - e',
  '\n  n9',
  '\n    - x',
  '\n      - r1:',
  '\n    position: {x: 1',
];

/** A shape-changing edit as a person makes it: a line typed character by character, or a whole entry deleted. */
function shapeEdits(text: string, pick: (n: number) => number): TextChange[] {
  const entries = [...text.matchAll(/^ {2}\S.*\n(?: {3,}.*\n)*/gm)];
  if (pick(4) === 0 && entries.length > 2) {
    const entry = entries[pick(entries.length)];
    return [{ start: entry.index, end: entry.index + entry[0].length, text: '' }];
  }
  let at = text.indexOf('\n', pick(text.length));
  if (at < 0) at = text.length;
  return [...TYPED_LINES[pick(TYPED_LINES.length)]].map((char, i) => ({ start: at + i, end: at + i, text: char }));
}

test('in a lab of many chunks of pieces, elements are found by their place after random edits, names repeated too', () => {
  // 600 nodes and their links are over 1,800 pieces: chunks of nodes or links alone, found without a visit.
  const pick = random(31);
  let doc = parseLab(generateLab(600, { seed: 3 }));
  assertPlacesAgree(doc, 'as opened');
  assertRunsAgree(doc, pick);
  const repeated = doc.text.indexOf('\nnetworks:');
  doc = updateAndCompare(doc, { start: repeated, end: repeated, text: '\n  r1:\n    template: vios' }, 'r1 again');
  assert.equal(doc.formatIssues.filter((i) => i.code === 'duplicate-key').length, 1);
  assertRunsAgree(doc, pick);
  // Each compared with a full parse of 600 nodes: a few, the randomized tests above make many more.
  for (let step = 0; step < 12; step++) {
    const change = randomChange(doc.text, pick);
    doc = updateAndCompare(doc, change, `step ${step}: ${JSON.stringify(change)}`);
  }
  assertRunsAgree(doc, pick);
});

/** Any run of pieces, not only a section's: its elements counted and found by their place as a walk finds them. */
function assertRunsAgree(doc: LabDocument, pick: (n: number) => number): void {
  assert.ok(doc instanceof ParsedLab);
  const { pieces } = doc.layout;
  for (let round = 0; round < 40; round++) {
    const from = pick(pieces.length);
    const to = from + pick(pieces.length - from + 1);
    for (const kind of ['nodes', 'links'] as const) {
      const walked: string[] = [];
      pieces.each(from, to, ({ fragment }, delta) => {
        for (const element of fragment[kind]) walked.push(`${element.range.start + delta}`);
      });
      assert.equal(pieces.countOf(kind, from, to), walked.length, `${kind} in pieces [${from}, ${to})`);
      const found = walked.map((_, n) => {
        const placed = pieces.elementAt(kind, from, to, n);
        return placed && `${placed.element.range.start + placed.delta}`;
      });
      assert.deepStrictEqual(found, walked, `${kind} in pieces [${from}, ${to}) by their place`);
    }
  }
}

test('typing new keys, nodes and links and deleting entries in a large lab: equal to a full parse at every edit', () => {
  // Large enough that a window grows past the pieces after an edit before it is back in step, or runs to the end.
  const pick = random(77);
  let doc = parseLab(generateLab(40, { seed: 5 }));
  let compared = 0;
  let broken = 0;
  for (let step = 0; step < 40; step++) {
    const edits = shapeEdits(doc.text, pick);
    const undo: TextChange[] = [];
    for (const edit of edits) {
      undo.unshift({
        start: edit.start,
        end: edit.start + edit.text.length,
        text: doc.text.slice(edit.start, edit.end),
      });
      doc = updateAndCompare(doc, edit, `step ${step}: ${JSON.stringify(edit)}`);
      compared++;
      if (doc.syntaxErrors.length > 0) broken++;
    }
    if (pick(2) === 0) continue;
    for (const edit of undo) {
      doc = updateAndCompare(doc, edit, `step ${step}, undone: ${JSON.stringify(edit)}`);
      compared++;
    }
  }
  assert.ok(compared >= 600, `${compared} edits compared`);
  assert.ok(broken >= 200, `${broken} of them left syntax errors`);
});

/**
 * Characters of the pieces an update read anew (those whose outline is not one
 * of the previous document's) outside the unsettled regions of either version:
 * broken text that the parser does not recover from is re-read to its end.
 */
function settledCharactersReRead(previous: LabDocument, updated: LabDocument, change: TextChange): number {
  assert.ok(previous instanceof ParsedLab && updated instanceof ParsedLab);
  const delta = change.text.length - (change.end - change.start);
  const moved = (r: { start: number; end: number }) => ({
    start: r.start >= change.end ? r.start + delta : Math.min(r.start, change.start),
    end: r.end <= change.start ? r.end : r.end + delta,
  });
  const regions = [...(previous.layout.unsettled ?? []).map(moved), ...(updated.layout.unsettled ?? [])];
  const kept = new Set([...previous.layout.pieces].map((piece) => piece.outline));
  let characters = 0;
  for (const piece of updated.layout.pieces) {
    if (kept.has(piece.outline)) continue;
    // The piece's characters minus those in regions (merged, so each counts once).
    const overlaps = regions
      .map((r) => ({ start: Math.max(r.start, piece.start), end: Math.min(r.end, piece.end) }))
      .filter((r) => r.start < r.end)
      .sort((a, b) => a.start - b.start);
    let covered = 0;
    let reached = piece.start;
    for (const r of overlaps) {
      covered += Math.max(0, r.end - Math.max(r.start, reached));
      reached = Math.max(reached, r.end);
    }
    characters += piece.end - piece.start - covered;
  }
  return characters;
}

test('a long typing run with syntax errors re-reads only around each edit, or the broken text it must', () => {
  // Typing leaves broken lines behind (stray keys, half-typed links, open brackets). Where the parser recovers, the
  // edit re-reads only around itself until the text after it reads as before; where it does not, the text to the
  // end reads differently (an unsettled region), and is re-read at each edit.
  const lab = generateLab(150, { seed: 4 });
  for (const [what, text, seed] of [
    ['valid', lab, 1],
    ['an unclosed bracket at the top', withUnclosedBracket(lab), 2],
  ] as const) {
    const typing = new TypingSimulator(text, seed);
    let doc = parseLab(text);
    let most = 0;
    let wide = 0;
    const steps = 300;
    for (let step = 0; step < steps; step++) {
      const next = typing.next();
      assert.ok('range' in next);
      const change = {
        start: offsetIn(doc.text, next.range.start),
        end: offsetIn(doc.text, next.range.end),
        text: next.text,
      };
      const previous = doc;
      doc = updateLab(doc, change);
      assert.equal(doc.text, typing.text);
      const reRead = settledCharactersReRead(previous, doc, change);
      most = Math.max(most, reRead);
      if (reRead > 8000) wide++;
      if (step % 50 === 49) assertSameAsFullParse(doc, `${what}, step ${step}`);
    }
    assert.ok(doc.syntaxErrors.length > 0, `${what}: the typing left errors behind`);
    // A window to the end of settled text re-reads tens of thousands of characters. One that must grow past an
    // error cluster until the text reads as before again re-reads more than a few pieces, now and then.
    assert.ok(wide <= steps / 100, `${what}: ${wide} of ${steps} edits re-read over 8,000 settled characters`);
    assert.ok(most < doc.text.length / 2, `${what}: at most ${most} settled characters re-read of ${doc.text.length}`);
  }
});

function offsetIn(text: string, position: { line: number; character: number }): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) offset = text.indexOf('\n', offset) + 1;
  return offset + position.character;
}

/**
 * Tabs in indentation: a line whose indentation holds a tab is set aside (an error on that line alone, the rest
 * read as if the line were blank; docs/lab-format.md); in a block scalar, a tab after the scalar's indentation is text.
 */
const TABBED_STARTS: [string, (text: string) => string][] = [
  ['a tab after the indentation of a node line', (text) => text.replace('    template: ', '    \ttemplate: ')],
  ['a tab inside the indentation of a node line', (text) => text.replace('    template: ', '  \t  template: ')],
  ['a tab as the indentation of a node key', (text) => text.replace(/\n {2}(\w+):\n/, '\n\t$1:\n')],
  ['a tab inside the indentation of a link', (text) => text.replace('\n  - endpoints', '\n \t- endpoints')],
  [
    'tabs in the text of a block scalar of a node, and one before its indentation',
    (text) =>
      text.replace(
        '    template: ',
        '    notes: |\n      interface eth0\n      \tip address 10.0.0.1/24\n\t    template: ',
      ),
  ],
  [
    'tabs in and after a block scalar',
    (text) => text.replace(/^description: .*$/m, 'description: |\n  first line\n  \tafter a tab\n\tless indented'),
  ],
];

/** A tab put into a line's indentation (in place of a space, or in front of it), or one taken out again. */
function tabChange(text: string, pick: (n: number) => number): TextChange {
  const tabs = [...text.matchAll(/^ *\t/gm)];
  if (tabs.length > 0 && pick(3) === 0) {
    const tab = tabs[pick(tabs.length)];
    const at = tab.index + tab[0].length - 1;
    return { start: at, end: at + 1, text: pick(2) ? '  ' : '' };
  }
  const indented = [...text.matchAll(/^ +/gm)];
  const line = indented[pick(indented.length)];
  const at = line.index + pick(line[0].length + 1);
  return { start: at, end: Math.min(at + pick(2), line.index + line[0].length), text: '\t' };
}

/**
 * 100 random edits from each start, half of them the breakage's own (`breakIt`), half any; each
 * compared with a full parse. Returns how many were compared, and how many left the text broken.
 */
function editBrokenStarts(
  starts: [string, (text: string) => string][],
  seeds: { pick: number; lab: number },
  breakIt: (text: string, pick: (n: number) => number) => TextChange,
  isBroken: (doc: LabDocument) => boolean,
): { compared: number; broken: number } {
  let compared = 0;
  let broken = 0;
  starts.forEach(([what, spoil], round) => {
    const pick = random(round + seeds.pick);
    let doc = parseLab(spoil(generateLab(12 + round * 2, { seed: round + seeds.lab })));
    assert.ok(isBroken(doc) && doc.syntaxErrors.length > 0, `${what}: the start has the error meant`);
    for (let step = 0; step < 100; step++) {
      const change = pick(2) ? breakIt(doc.text, pick) : randomChange(doc.text, pick);
      doc = updateAndCompare(doc, change, `${what}, step ${step}: ${JSON.stringify(change)}`);
      compared++;
      if (isBroken(doc)) broken++;
    }
  });
  return { compared, broken };
}

test('with tabs in indentation, updateLab equals a full parse after each of many random edits', () => {
  const { compared, broken: tabbed } = editBrokenStarts(TABBED_STARTS, { pick: 301, lab: 11 }, tabChange, (doc) =>
    /^ *\t/m.test(doc.text),
  );
  // All 600 edits are compared, and nearly all of them with a tab somewhere in the indentation.
  assert.equal(compared, 600);
  assert.ok(tabbed >= 480, `${tabbed} of ${compared} edits compared with a tab in the indentation`);
});

test('a line with a tab in its indentation is set aside: one error on it, the rest read as without it', () => {
  const lab = generateLab(60, { seed: 12 });
  const cases: [string, string, number][] = [
    ['after the indentation', lab.replace('    template: ', '    \ttemplate: '), 60],
    ['in place of the indentation', lab.replace('    template: ', '\ttemplate: '), 60],
    ['inside the indentation', lab.replace('    template: ', '  \t  template: '), 60],
    // Its entries then read as the previous node's: repeated keys, on the lines they are on.
    ['as the indentation of a node key', lab.replace('\n  sw2:\n', '\n\tsw2:\n'), 59],
  ];
  const links = parseLab(lab).links.length;
  for (const [what, text, nodes] of cases) {
    const doc = parseLab(text);
    const line = /^[ \t]*\t.*$/m.exec(text) ?? assert.fail(`${what}: a tabbed line`);
    assert.deepEqual(
      doc.syntaxErrors,
      [
        {
          message:
            'a tab in indentation: YAML indents with spaces, so this line is not read; replace its tabs with spaces',
          range: { start: line.index, end: line.index + line[0].length },
          code: 'tab-indentation',
        },
      ],
      what,
    );
    assert.equal(doc.nodes.length, nodes, `${what}: nodes`);
    assert.equal(doc.links.length, links, `${what}: links`);
    // Exactly what the text with that line blank reads as, apart from the error.
    const blank = parseLab(text.replace(line[0], ' '.repeat(line[0].length)));
    assert.deepStrictEqual(
      { ...observe(doc), syntaxErrors: [], text: '' },
      { ...observe(blank), syntaxErrors: [], text: '' },
      what,
    );
  }
  // Inside a block scalar a tab after the scalar's indentation is text, as YAML reads it.
  const scalar = parseLab('name: x\ndescription: |\n  first line\n  \tafter a tab\nnodes:\n  r1:\n    template: frr\n');
  assert.deepEqual(scalar.syntaxErrors, []);
  assert.equal(scalar.description?.value, 'first line\n\tafter a tab\n');
  // A line of tabs alone, or tabs before a comment, is blank to YAML: nothing to set aside.
  assert.deepEqual(parseLab('name: x\n\t\n\t# a comment\nnodes:\n  r1:\n    template: frr\n').syntaxErrors, []);
});

/**
 * The common breakages near the top of a lab, each left there while the keystrokes of the typing bench are typed
 * further down: a new key in a node an eighth into the nodes, and a new link in the middle of the links.
 */
const LOCAL_BREAKAGES: [string, (text: string) => string][] = [
  ['a tab typed at the start of a line', (text) => text.replace('\n    template: ', '\n\t    template: ')],
  ['a tab in place of the indentation', (text) => text.replace('\n    template: ', '\n\ttemplate: ')],
  [
    'an unclosed quote typed on a node line',
    (text) => text.replace('\n    template: ', '\n    image: "vios\n    template: '),
  ],
  ["an unclosed ' in the description", (text) => text.replace('\ndescription: ', "\ndescription: 'it''s ")],
  ['an over-indented key', (text) => text.replace('\n    ethernet: ', '\n      ethernet: ')],
  ['an unclosed [', (text) => text.replace('template: ', 'template: [')],
  ['{} typed after a position', (text) => text.replace(/(position: \{[^}\n]*\})/, '$1{}')],
  ['a stray } as a value', (text) => text.replace('\n    template: ', '\n    ram: }\n    template: ')],
  ['a node name typed without its colon', (text) => text.replace('\n  sw2:\n', '\n  n9\n  sw2:\n')],
  [
    'a link typed among the nodes',
    (text) => text.replace('\n  sw2:\n', '\n  - endpoints: [r1:eth0, sw2:eth0]\n  sw2:\n'),
  ],
  ['a node typed among the links', (text) => text.replace('\nlinks:\n', '\nlinks:\n  - endpoints: [a, b]\n  n9:\n')],
];

test('every common breakage stays local: each later keystroke re-reads as little as in the valid lab', () => {
  const lab = generateLab(150, { seed: 21 });
  const keystrokes = (text: string): TextChange[] => {
    const key = text.indexOf('\n', text.indexOf('    ethernet: ', text.indexOf('\nnodes:') + (text.length >> 3)));
    const link = text.indexOf('\n', text.indexOf('  - endpoints: [', text.length >> 1));
    const typed = (at: number, line: string) =>
      [...line].map((char, i) => ({ start: at + i, end: at + i, text: char }));
    // The link comes first: typing the key moves it.
    return [...typed(link, '\n  - endpoints: [r1:Gi0/7, sw2:Gi3/3]'), ...typed(key, '\n    cpu: 2')];
  };
  /** The characters of the pieces of each version whose outline is not one of the version before's: read anew. */
  const reRead = (text: string): number[] => {
    let doc = parseLab(text);
    const counts = keystrokes(text).map((change) => {
      const previous = doc as ParsedLab;
      doc = updateLab(doc, change);
      const kept = new Set([...previous.layout.pieces].map((piece) => piece.outline));
      const read = [...(doc as ParsedLab).layout.pieces].filter((piece) => !kept.has(piece.outline));
      return read.reduce((sum, piece) => sum + piece.end - piece.start, 0);
    });
    // Every edit of these texts is compared with a full parse by the property tests above; here, where typing ends.
    assertSameAsFullParse(doc, text.slice(0, 200));
    return counts;
  };
  const clean = Math.max(...reRead(lab));
  for (const [what, breakIt] of LOCAL_BREAKAGES) {
    const text = breakIt(lab);
    assert.ok(parseLab(text).syntaxErrors.length > 0, `${what}: broken`);
    const most = Math.max(...reRead(text));
    // A window re-reads the piece before the edit and some after it until the text reads as before; the valid lab's
    // windows (for half-typed lines) are as wide. The whole lab is ~25,000 characters.
    assert.ok(most <= clean * 2, `${what}: up to ${most} characters re-read by a keystroke (valid: ${clean})`);
  }
});

/**
 * Unclosed quotes: a line on which a quoted string starts and does not end is set aside (an error on that line alone,
 * the rest read as if the line were blank; docs/lab-format.md); quotes in a block scalar's text are text.
 */
const QUOTED_STARTS: [string, (text: string) => string][] = [
  ['an unclosed " typed on a node line', (text) => text.replace('    template: ', '    image: "vios\n    template: ')],
  ["an unclosed ' in the description", (text) => text.replace(/^description: /m, "description: 'it''s ")],
  ['an unclosed " in a link', (text) => text.replace('  - endpoints: [', '  - endpoints: ["')],
  [
    'quotes in a block scalar, and an unclosed one after it',
    (text) =>
      text.replace(
        '    template: ',
        '    notes: |\n      banner "welcome\n      it\'s "here\n    image: "x\n    template: ',
      ),
  ],
  [
    'closed quotes, then an unclosed one',
    (text) => text.replace('    template: ', '    image: "a\\"b" # "c\n    icon: \'d'),
  ],
];

/** A quote put at a random place of a line (mostly where a value starts), or one taken out or closed again. */
function quoteChange(text: string, pick: (n: number) => number): TextChange {
  const quotes = [...text.matchAll(/["']/g)];
  if (quotes.length > 0 && pick(3) === 0) {
    const quote = quotes[pick(quotes.length)];
    if (pick(2)) return { start: quote.index, end: quote.index + 1, text: '' };
    const end = text.indexOf('\n', quote.index);
    const at = end < 0 ? text.length : end;
    return { start: at, end: at, text: quote[0] };
  }
  const values = [...text.matchAll(/(?:: |- |\[|, |^ *)/gm)];
  const value = values[pick(values.length)];
  const at = pick(4) ? value.index + value[0].length : pick(text.length + 1);
  return { start: at, end: at, text: pick(3) ? '"' : "'" };
}

test('with unclosed quotes, updateLab equals a full parse after each of many random edits', () => {
  const { compared, broken: unclosed } = editBrokenStarts(QUOTED_STARTS, { pick: 401, lab: 13 }, quoteChange, (doc) =>
    doc.syntaxErrors.some((e) => e.code === 'unclosed-quote'),
  );
  // All 500 edits are compared, and most of them with an unclosed quote somewhere.
  assert.equal(compared, 500);
  assert.ok(unclosed >= 350, `${unclosed} of ${compared} edits compared with an unclosed quote`);
});

test('a line with an unclosed quote is set aside: one error on it, the rest read as without it', () => {
  const lab = generateLab(60, { seed: 14 });
  const nodes = parseLab(lab).nodes.length;
  const links = parseLab(lab).links.length;
  const cases: [string, string, string][] = [
    ['a " typed as a value', lab.replace('    template: ', '    image: "vios\n    template: '), '    image: "vios'],
    [
      "a ' after a closed one",
      lab.replace('    template: ', "    icon: 'a''b' 'c\n    template: "),
      "    icon: 'a''b' 'c",
    ],
    [
      'an escaped " that does not close',
      lab.replace('    template: ', '    image: "a\\"\n    template: '),
      '    image: "a\\"',
    ],
    ['a " in a flow list', lab.replace('  - endpoints: [', '  - endpoints: ["'), ''],
    ['a " as a key', lab.replace('    template: ', '    "templ\n    template: '), '    "templ'],
  ];
  for (const [what, text, written] of cases) {
    const doc = parseLab(text);
    const at = written ? text.indexOf(`\n${written}\n`) + 1 : text.indexOf('  - endpoints: ["');
    const end = text.indexOf('\n', at);
    assert.deepEqual(
      doc.syntaxErrors,
      [
        {
          message:
            'an unclosed quote: a quoted string in a lab ends on the line it starts on, so this line is not read; close the quote (text over several lines goes in a block scalar, | or >)',
          range: { start: at, end },
          code: 'unclosed-quote',
        },
      ],
      what,
    );
    // Exactly what the text with that line blank reads as, apart from the error.
    const blank = parseLab(text.slice(0, at) + ' '.repeat(end - at) + text.slice(end));
    assert.deepStrictEqual(
      { ...observe(doc), syntaxErrors: [], text: '' },
      { ...observe(blank), syntaxErrors: [], text: '' },
      what,
    );
    assert.equal(doc.nodes.length, nodes, `${what}: nodes`);
    assert.equal(doc.links.length, what.includes('flow') ? links - 1 : links, `${what}: links`);
  }
  // Quotes that YAML reads as text, or that close on their line, are nothing to set aside.
  const fine = parseLab(
    [
      'name: x',
      'description: it\'s a "lab" # and a \'comment',
      'nodes:',
      '  r1:',
      '    template: frr',
      '    image: "a # b" # "c',
      "    icon: 'it''s'",
      '    notes: |',
      '      banner "welcome',
      "      it's",
      '',
      '      \t"tabbed',
      '    cpu: 2',
      '',
    ].join('\n'),
  );
  assert.deepEqual(fine.syntaxErrors, []);
  assert.equal(fine.nodes[0].fields.image?.value, 'a # b');
  assert.equal(fine.nodes[0].fields.cpu?.value, 2);
  // A quoted string over several lines, which YAML allows, is not a lab's: its first line is set aside (and the
  // next one, indented, continues the name before it).
  const multiline = parseLab('name: x\ndescription: "first\n  second"\nnodes:\n  r1:\n    template: frr\n');
  assert.deepEqual(
    multiline.syntaxErrors.map((e) => e.code),
    ['unclosed-quote'],
  );
  assert.equal(multiline.nodes.length, 1);
});

/**
 * Checks that `text` has one syntax error, the line [at, end) set aside with `code` and `message`,
 * that it otherwise reads as the same text with that line blank, and that it has `count` nodes and links.
 */
function assertSetAside(
  text: string,
  line: { start: number; end: number },
  error: { code: string; message: string },
  count: { nodes: number; links: number },
  what: string,
): void {
  const doc = parseLab(text);
  assert.deepEqual(doc.syntaxErrors, [{ message: error.message, range: line, code: error.code }], what);
  const blank = parseLab(text.slice(0, line.start) + ' '.repeat(line.end - line.start) + text.slice(line.end));
  assert.deepStrictEqual(
    { ...observe(doc), syntaxErrors: [], text: '' },
    { ...observe(blank), syntaxErrors: [], text: '' },
    what,
  );
  assert.equal(doc.nodes.length, count.nodes, `${what}: nodes`);
  assert.equal(doc.links.length, count.links, `${what}: links`);
}

/** assertSetAside for each case: [what, text, the whole line of it set aside]. */
function assertLinesSetAside(
  cases: readonly [string, string, string][],
  error: { code: string; message: string },
  count: { nodes: number; links: number },
): void {
  for (const [what, text, written] of cases) {
    const at = text.indexOf(`\n${written}\n`) + 1;
    assertSetAside(text, { start: at, end: at + written.length }, error, count, what);
  }
}

/**
 * Stray brackets: a `}` or `]` where a value starts, or a `{` or `[` right after a flow collection or a quoted string
 * has ended, is set aside (an error on that line alone; docs/lab-format.md): the yaml package reads every line after
 * it as broken, so each keystroke below it re-read the rest of the lab.
 */
const STRAY_STARTS: [string, (text: string) => string][] = [
  ['{} typed after a position', (text) => text.replace(/(position: \{[^}\n]*\})/, '$1{}')],
  ['a } typed as a value', (text) => text.replace('    template: ', '    ram: }\n    template: ')],
  ['a ] after the endpoints of a link', (text) => text.replace(/(endpoints: \[[^\]\n]*\])/, '$1]')],
  ['a [ after a quoted value', (text) => text.replace('    template: ', '    image: "vios" [\n    template: ')],
  [
    'a flow list over several lines, then a stray ] on its last line',
    (text) =>
      text.replace(/endpoints: \[([^,\n]*), /, 'endpoints: [$1,\n      ').replace(/(endpoints: \[[^\]\n]*\])/, '$1]'),
  ],
];

/** A bracket put right after a closing one or where a value starts, or one taken out again. */
function strayChange(text: string, pick: (n: number) => number): TextChange {
  const closings = [...text.matchAll(/[\]}]/g)];
  if (closings.length > 0 && pick(3) === 0) {
    const closing = closings[pick(closings.length)];
    return { start: closing.index, end: closing.index + 1, text: '' };
  }
  const places = [...text.matchAll(/[\]}](?=\n)|: /g)];
  const place = places[pick(places.length)];
  const at = place.index + place[0].length;
  return { start: at, end: at, text: ['{}', '[]', '}', ']', '{', ' [', 'x', '3"0'][pick(8)] };
}

test('with stray brackets, updateLab equals a full parse after each of many random edits', () => {
  const { compared, broken: stray } = editBrokenStarts(STRAY_STARTS, { pick: 501, lab: 15 }, strayChange, (doc) =>
    doc.syntaxErrors.some((e) => e.code === 'stray-bracket' || e.code === 'text-after-value'),
  );
  // All 500 edits are compared, and most of them with a stray bracket somewhere.
  assert.equal(compared, 500);
  assert.ok(stray >= 350, `${stray} of ${compared} edits compared with a stray bracket`);
});

/** A link whose [ is left open, and a { left open on a deeper line inside it (a bench's fuzz met it: #29). */
function withNestedOpenBrackets(text: string, inside = '      - x\n    position: {x: 1, y\n'): string {
  return text.replace(
    /\n {2}- endpoints: \[([^,\n]*),[^\n]*\n/,
    (_, first: string) => `\n  - endpoints: [${first}\n${inside}`,
  );
}

test('a { or [ left open inside a flow collection that is never closed is set aside; the links after it are read', () => {
  const lab = generateLab(60, { seed: 21 });
  const links = parseLab(lab).links.length;
  const text = withNestedOpenBrackets(lab);
  assert.notEqual(text, lab);
  const doc = parseLab(text);
  const at = text.indexOf('    position: {x: 1, y\n');
  const inner = doc.syntaxErrors.filter((e) => e.code === 'unclosed-inner-bracket');
  assert.deepEqual(
    inner.map((e) => e.range),
    [{ start: at, end: at + '    position: {x: 1, y'.length }],
  );
  assert.match(inner[0].message, /^a bracket left open inside another: /);
  // The open [ is one error of its own; the link is read, and every one after it (without the rule, none was).
  assert.equal(doc.syntaxErrors.length, 2, JSON.stringify(doc.syntaxErrors));
  assert.equal(doc.links.length, links);
  // A line further left that is set aside itself reads as blank to YAML: the [ goes on, and a { under it is inside.
  const across = parseLab(withNestedOpenBrackets(lab, '  - endpoints: [a:e0, b:e0]3x\n    position: {\n'));
  assert.deepEqual(
    across.syntaxErrors.map((e) => e.code ?? "YAML's").sort(),
    ["YAML's", 'text-after-value', 'unclosed-inner-bracket'],
    JSON.stringify(across.syntaxErrors),
  );
  assert.equal(across.links.length, links);
  // Closed on a later line, nested flow collections over several lines are valid YAML: nothing is set aside.
  const closed = text.replace('    position: {x: 1, y\n', '    position: {x: 1, y: 2}]\n');
  assert.deepEqual(
    parseLab(closed).syntaxErrors.filter((e) => e.code !== undefined),
    [],
  );
});

test('with brackets left open inside open ones, updateLab equals a full parse after each of many random edits', () => {
  const starts: [string, (text: string) => string][] = [
    ['a { left open inside a [ left open', withNestedOpenBrackets],
    ['the same, twice', (text) => withNestedOpenBrackets(withNestedOpenBrackets(text))],
    [
      'a { under a line set aside under a [ left open',
      (text) => withNestedOpenBrackets(text, '  - endpoints: [a:e0, b:e0]3x\n    position: {\n'),
    ],
  ];
  const { compared, broken } = editBrokenStarts(starts, { pick: 601, lab: 21 }, strayChange, (doc) =>
    doc.syntaxErrors.some((e) => e.code === 'unclosed-inner-bracket'),
  );
  assert.equal(compared, 300);
  assert.ok(broken >= 150, `${broken} of ${compared} edits compared with a bracket left open inside another`);
});

test('a line with a stray bracket is set aside: one error on it, the rest read as without it', () => {
  const lab = generateLab(60, { seed: 16 });
  const nodes = parseLab(lab).nodes.length;
  const links = parseLab(lab).links.length;
  const position = /position: \{[^}\n]*\}/.exec(lab)?.[0] ?? assert.fail('a position');
  const endpoints = /endpoints: \[[^\]\n]*\]/.exec(lab)?.[0] ?? assert.fail('a link');
  const cases: [string, string, string][] = [
    ['{} after a position', lab.replace(position, `${position}{}`), `${position}{}`],
    ['a second } after a position', lab.replace(position, `${position} } # moved`), `${position} } # moved`],
    ['a } as a value', lab.replace('    template: ', '    ram: }\n    template: '), '    ram: }'],
    ['a ] after a link', lab.replace(endpoints, `${endpoints}]`), `${endpoints}]`],
    [
      'a {} after an endpoint of a link, without a comma',
      lab.replace(endpoints, `${endpoints.slice(0, -1)}{}]`),
      `${endpoints.slice(0, -1)}{}]`,
    ],
    ['a [ after a quoted value', lab.replace('    template: ', '    image: "x"[\n    template: '), '    image: "x"['],
  ];
  for (const [what, text, written] of cases) {
    // The whole line: from its start, to its end.
    const at = text.lastIndexOf('\n', text.indexOf(written)) + 1;
    assertSetAside(
      text,
      { start: at, end: text.indexOf('\n', at) },
      {
        code: 'stray-bracket',
        message:
          'a stray bracket: a } or ] that closes nothing, or a { or [ right after a value that has ended, makes YAML read the rest of the lab differently, so this line is not read; remove the bracket and what follows it',
      },
      { nodes, links: what.includes('link') ? links - 1 : links },
      what,
    );
  }
  // Other text after a flow collection or a quoted value: its own code, and its line alone.
  const after = lab.replace(endpoints, `${endpoints}3"0`);
  const afterAt = after.lastIndexOf('\n', after.indexOf(`${endpoints}3"0`)) + 1;
  assert.deepEqual(
    parseLab(after).syntaxErrors.map((e) => [e.code, e.range]),
    [['text-after-value', { start: afterAt, end: after.indexOf('\n', afterAt) }]],
  );
  assert.equal(parseLab(after).links.length, links - 1);
  // Flow collections over several lines, nested ones, brackets inside plain values and comments: nothing to set aside.
  const fine = parseLab(
    [
      'name: x',
      'description: a } and a ] # and [ }',
      'nodes:',
      '  r1:',
      '    template: frr',
      '    position: {x: 1,',
      '      y: 2}',
      '    icon: [a, {b: [c]}]',
      'links:',
      '  - endpoints: [',
      '      r1:eth0,',
      '      r2:eth0]',
      '',
    ].join('\n'),
  );
  assert.deepEqual(fine.syntaxErrors, []);
  assert.deepEqual(fine.nodes[0].fields.position?.value, { x: 1, y: 2 });
  assert.equal(fine.links.length, 1);
});

/**
 * Keys without their colon: a line of one plain scalar where a key belongs (a node's name being typed) is set aside;
 * the yaml package reads it as a key over several lines, and the nodes after it as its children.
 */
const KEYLESS_STARTS: [string, (text: string) => string][] = [
  ['a node name typed among the nodes', (text) => text.replace('\n  sw2:\n', '\n  n9\n  sw2:\n')],
  ['a node name typed before its settings', (text) => text.replace('\n  sw2:\n', '\n  sw2\n')],
  ['a setting typed in a node', (text) => text.replace(/(\n {4}template: [^\n]*)/, '$1\n    templ')],
  ['a section name at the top level', (text) => text.replace('\nlinks:\n', '\nlinks\n')],
];

/** A colon taken from a key, put back, or a word typed on a new line at a key's indentation. */
function keylessChange(text: string, pick: (n: number) => number): TextChange {
  const keys = [...text.matchAll(/^ *\w+(:)$/gm)];
  if (keys.length > 0 && pick(2) === 0) {
    const key = keys[pick(keys.length)];
    const at = key.index + key[0].length - 1;
    return { start: at, end: at + 1, text: '' };
  }
  const bare = [...text.matchAll(/^ *\w+$/gm)];
  if (bare.length > 0 && pick(2) === 0) {
    const line = bare[pick(bare.length)];
    return { start: line.index + line[0].length, end: line.index + line[0].length, text: ':' };
  }
  const lines = [...text.matchAll(/\n( *)/g)];
  const line = lines[pick(lines.length)];
  return { start: line.index, end: line.index, text: `\n${line[1]}${['n', 'x9', 'temp'][pick(3)]}` };
}

test('with keys without their colon, updateLab equals a full parse after each of many random edits', () => {
  const { compared, broken: keyless } = editBrokenStarts(KEYLESS_STARTS, { pick: 601, lab: 17 }, keylessChange, (doc) =>
    doc.syntaxErrors.some((e) => e.code === 'key-without-colon'),
  );
  // All 400 edits are compared, and most of them with a key without its colon somewhere.
  assert.equal(compared, 400);
  assert.ok(keyless >= 280, `${keyless} of ${compared} edits compared with a key without its colon`);
});

test('a key without its colon is set aside: one error on it, the rest read as without it; a value is not', () => {
  const lab = generateLab(60, { seed: 18 });
  const nodes = parseLab(lab).nodes.length;
  const links = parseLab(lab).links.length;
  const cases: [string, string, string][] = [
    ['a node name among the nodes', lab.replace('\n  sw2:\n', '\n  n9\n  sw2:\n'), '  n9'],
    [
      'a setting in a node, with a comment',
      lab.replace(/(\n {4}template: [^\n]*)/, '$1\n    templ # t'),
      '    templ # t',
    ],
    ['a section name', lab.replace('\nlinks:\n', '\nlinks:\nnetw\n'), 'netw'],
  ];
  assertLinesSetAside(
    cases,
    {
      code: 'key-without-colon',
      message:
        'a key without its colon: a word alone on a line where a key belongs makes YAML read the lines after it into it, so this line is not read; end the key with a colon (r1:)',
    },
    { nodes, links },
  );
  // A plain scalar over several lines, or on the line after its key or dash: values, as YAML reads them.
  const values = parseLab(
    [
      'name: x',
      'description: three routers',
      '  in a line',
      'nodes:',
      '  r1:',
      '    template:',
      '      frr',
      'links:',
      '  - endpoints: [r1:eth0, r2:eth0]',
      '    label: core',
      '      link',
      'tests:',
      '  -',
      '    name: reach',
      '',
    ].join('\n'),
  );
  assert.deepEqual(
    values.syntaxErrors.map((e) => e.code),
    [],
  );
  assert.equal(values.description?.value, 'three routers in a line');
  assert.equal(values.nodes[0].fields.template?.value, 'frr');
});

/** List items among keys: a `- ` at the indentation of a map's keys (a link typed among the nodes) is set aside. */
const LISTED_STARTS: [string, (text: string) => string][] = [
  [
    'a node typed among the links',
    (text) => text.replace('\nlinks:\n', '\nlinks:\n  - endpoints: [a, b]\n  n9:\n  - x\n'),
  ],
  [
    'a link typed among the nodes',
    (text) => text.replace('\n  sw2:\n', '\n  - endpoints: [r1:eth0, sw2:eth0]\n  sw2:\n'),
  ],
  ['a list item among a node settings', (text) => text.replace(/(\n {4}template: [^\n]*)/, '$1\n    - x')],
  ['a list item among the top-level keys', (text) => text.replace('\nlinks:\n', '\n- x\nlinks:\n')],
  [
    'links written as a list at its key indentation, and a list item among the nodes',
    (text) => text.replace(/\n {2}- endpoints/g, '\n- endpoints').replace('\n  sw2:\n', '\n  - x\n  sw2:\n'),
  ],
];

/** A `- ` put at the start of a line's indentation, one taken out, or a line starting a list typed. */
function listedChange(text: string, pick: (n: number) => number): TextChange {
  const dashes = [...text.matchAll(/^ *(- )/gm)];
  if (dashes.length > 0 && pick(3) === 0) {
    const dash = dashes[pick(dashes.length)];
    const at = dash.index + dash[0].length - 2;
    return { start: at, end: at + 2, text: '' };
  }
  const lines = [...text.matchAll(/\n( *)/g)];
  const line = lines[pick(lines.length)];
  const at = line.index + 1 + line[1].length;
  return pick(2) ? { start: at, end: at, text: '- ' } : { start: line.index, end: line.index, text: `\n${line[1]}- x` };
}

test('with list items among keys, updateLab equals a full parse after each of many random edits', () => {
  const { compared, broken: listed } = editBrokenStarts(LISTED_STARTS, { pick: 701, lab: 19 }, listedChange, (doc) =>
    doc.syntaxErrors.some((e) => e.code === 'list-item-among-keys' || e.code === 'key-among-list-items'),
  );
  // All 500 edits are compared, and most of them with a list item among keys somewhere.
  assert.equal(compared, 500);
  assert.ok(listed >= 250, `${listed} of ${compared} edits compared with a list item among keys or a key among items`);
});

test('a list item among keys is set aside: one error on it, the rest read as without it; a list under its key is not', () => {
  const lab = generateLab(60, { seed: 20 });
  const nodes = parseLab(lab).nodes.length;
  const links = parseLab(lab).links.length;
  const cases: [string, string, string][] = [
    ['a link among the nodes', lab.replace('\n  sw2:\n', '\n  - endpoints: [a, b]\n  sw2:\n'), '  - endpoints: [a, b]'],
    ['an item among the top-level keys', lab.replace('\nlinks:\n', '\n- x\nlinks:\n'), '- x'],
  ];
  assertLinesSetAside(
    cases,
    {
      code: 'list-item-among-keys',
      message:
        'a list item among keys: a - where the keys of a map are (a link among the nodes?) makes YAML read the lines after it into it, so this line is not read; move it under the list it belongs to (links:), or indent it under its key',
    },
    { nodes, links },
  );
  // The other way round: a key among the items of a list (a node typed among the links).
  const keyed = lab.replace('\nlinks:\n', '\nlinks:\n  - endpoints: [r1:eth0, r2:eth0]\n  n9:\n');
  const keyedDoc = parseLab(keyed);
  const at = keyed.indexOf('\n  n9:\n') + 1;
  assert.deepEqual(
    keyedDoc.syntaxErrors.map((e) => [e.code, e.range]),
    [['key-among-list-items', { start: at, end: at + '  n9:'.length }]],
  );
  assert.equal(keyedDoc.links.length, links + 1);
  assert.equal(keyedDoc.nodes.length, nodes);
  // A list at its key's indentation, and lists nested in items: what YAML reads, with nothing set aside.
  const lists = parseLab(
    [
      'name: x',
      'links:',
      '- endpoints: [r1:eth0, r2:eth0]',
      '- endpoints:',
      '  - r1:eth1',
      '  - r2:eth1',
      'tests:',
      '- name: a',
      '',
    ].join('\n'),
  );
  assert.deepEqual(
    lists.syntaxErrors.map((e) => e.code),
    [],
  );
  assert.equal(lists.links.length, 2);
});

test('a tab after the indentation of a block scalar is text, as the yaml package reads it; one before it is set aside', () => {
  const cases: [string, string][] = [
    ['after the first line', 'description: |\n  first line\n  \tafter a tab\n'],
    ['on the first line', 'description: |\n  \tfirst line\n  second\n'],
    ['folded', 'description: >\n  first\n  \ttabbed\n  last\n'],
    ['kept and stripped', 'description: |+\n  a\n  \tb\n\nx: |-\n  \tc\n'],
    ['with its indentation given', 'description: |1\n  \tone space more\n \tb\n'],
    ['after blank lines', 'description: |\n  a\n\n   \n  \tb\n'],
    ['with quotes', 'description: |\n  banner "hello\n  \tit\'s\n'],
    ['before the indentation', 'description: |\n  a\n\tb\n  c\n'],
    ['before the indentation of the first line', 'description: |\n\ta\n'],
    ['in a blank line before the indentation', 'description: |\n  a\n\t\n  b\n'],
    ['after the scalar', 'description: |\n  a\n\tname: y\n'],
  ];
  for (const [what, head] of cases) {
    const text = `${head}nodes:\n  r1:\n    template: frr\n    notes: |\n      interface eth0\n      \tip address 10.0.0.1\n`;
    const doc = parseLab(text);
    const yaml = parseDocument(text, { uniqueKeys: false });
    const tabbed = doc.syntaxErrors.filter((e) => e.code === 'tab-indentation');
    assert.equal(tabbed.length, doc.syntaxErrors.length, `${what}: only tab errors`);
    // The yaml package reads the text without errors exactly when no line is set aside, and then the same text.
    assert.equal(
      tabbed.length === 0,
      yaml.errors.length === 0,
      `${what}: ${yaml.errors.map((e) => e.message).join('; ')}`,
    );
    if (tabbed.length === 0) {
      assert.equal(doc.description?.value, yaml.get('description'), `${what}: the description`);
      assert.equal(doc.nodes.length, 1, what);
    } else {
      // Set aside, each tabbed line is one error and the line reads as blank.
      for (const error of tabbed) assert.match(text.slice(error.range.start, error.range.end), /^ *\t/, what);
      let blank = text;
      for (const { range } of tabbed)
        blank = blank.slice(0, range.start) + ' '.repeat(range.end - range.start) + blank.slice(range.end);
      // (The ranges of a value that ends at a set-aside line end where the line's text does: not compared.)
      const read = (lab: LabDocument) => JSON.parse(JSON.stringify([lab.description?.value, lab.nodes, lab.links]));
      assert.deepStrictEqual(read(doc), read(parseLab(blank)), what);
    }
  }
});
