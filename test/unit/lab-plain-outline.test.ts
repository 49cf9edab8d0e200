/**
 * The direct reader of plain YAML must give exactly the outline the `yaml`
 * package's tree gives, or nothing (then the parser reads the text): checked on
 * generated labs, written variants of each construct, and many random edits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOutline } from '../../common/lab/parse/outline';
import { readPlainOutline } from '../../common/lab/parse/plain-outline';
import { parseYaml } from '../../common/lab/parse/yaml-text';
import { generateLab } from '../support/generate-lab';
import { seededPick } from '../support/random';

/** Whether the reader took the text; fails when its outline differs from the parser's or the parser finds errors. */
function agreesWithParser(text: string): boolean {
  const plain = readPlainOutline(text).root;
  if (!plain) return false;
  const doc = parseYaml(text);
  assert.deepEqual(doc.errors, [], `read as plain, but the parser finds errors in ${JSON.stringify(text)}`);
  const parsed = buildOutline(doc.contents, { src: text, base: 0, sawAlias: false });
  assert.deepStrictEqual(plain, parsed, JSON.stringify(text));
  return true;
}

test('generated labs are read as plain YAML, to the outline the parser gives', () => {
  for (const size of [1, 10, 200]) assert.ok(agreesWithParser(generateLab(size, { seed: size })), `${size} nodes`);
});

test('each construct of the subset reads as the parser reads it; the rest is left to the parser', () => {
  const plain = [
    'a: 1\nb: -2\nc: true\nd: False\ne: null\nf: x y  \ng:\nh: \nnull: 0\n',
    'a: http://x/y # comment\n# line\n  # indented comment\nb: a#b\nc: (x) [y] {z}, w\n',
    'links:\n  - endpoints: [r1:Gi0/0, mgmt]  # c\n  - endpoints:\n      - r1:Gi0/1\n      -  r2:e0\n  -\n  - \n  - x\n',
    'nodes:\n  r1:\n    position: {x: 100,  y: -5}\n    tags: []\n    m: {}\n    l: [ a ,b ]\n',
    'a:\n  -\n    b: 1\n    c:\n      - d\n  - e: 1\n    f: 2\n',
  ];
  for (const text of plain) assert.ok(agreesWithParser(text), JSON.stringify(text));
  const other = [
    'a: "x"\n',
    "a: 'x'\n",
    'a: &x 1\nb: *x\n',
    'a: !tag x\n',
    'a: |\n  x\n',
    'a: >\n  x\n',
    'a: 1.5\n',
    'a: 0x1f\n',
    'a: .inf\n',
    'a: x\n  y\n',
    'a:\n- x\n',
    '? a\n: b\n',
    '---\na: 1\n',
    'a:\tx\n',
    'a: x\r\n',
    '  a: 1\n',
    'a: [x, [y]]\n',
    'a: [x,]\n',
    'a: [x:]\n',
    'a: {x: y: z}\n',
    'a: [x\n',
    'a: b: c\n',
    'a: x:\n',
    'a:b\n',
    '- a\n',
    'a:\n  b: 1\n c: 2\n',
    'a:\n  - x\n   - y\n',
    '%YAML 1.2\n---\na: 1\n',
    '\ufeffa: 1\n',
    '# only a comment\n',
    '',
  ];
  for (const text of other) assert.equal(readPlainOutline(text).root, undefined, JSON.stringify(text));
});

test('after random edits, the reader agrees with the parser or leaves the text to it', () => {
  const pick = seededPick(7);
  const pieces = [
    ' ',
    '  ',
    '\n',
    ':',
    ': ',
    '- ',
    '-',
    '#',
    ' #',
    '[',
    ']',
    ',',
    '{',
    '}',
    'x',
    '1',
    '1.5',
    'true',
    '~',
  ];
  const base = generateLab(12, { seed: 5 });
  let plain = 0;
  for (let i = 0; i < 3000; i++) {
    let text = base;
    for (let k = 1 + pick(3); k > 0; k--) {
      const at = pick(text.length + 1);
      const cut = pick(3) === 0 ? pick(6) : 0;
      text = text.slice(0, at) + pieces[pick(pieces.length)] + text.slice(at + cut);
    }
    if (agreesWithParser(text)) plain++;
  }
  // The edits must leave much of the text plain, or this test would check little.
  assert.ok(plain > 600, `only ${plain} of 3000 edited texts were read as plain`);
});
