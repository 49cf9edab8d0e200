/**
 * Quick fixes over stdio, on the reference agent's catalogue: each broken
 * sample gets a preferred fix that changes one line, and the fixed document
 * has no diagnostics at all (local checks and the agent's).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodeAction, Diagnostic, TextEdit } from 'vscode-languageserver-protocol';
import type { LspClient } from '../support/lsp';
import { fileUri, type AgentFixture, startServerOnAgent, stopServerOnAgent } from './fixture';

const VALID = `name: fixes
nodes:
  core1:
    template: vios
  edge1:
    template: vios
links:
  - endpoints: [core1:Gi0/0, edge1:Gi0/0]
`;

let fixture: AgentFixture;
let client: LspClient;
let opened = 0;

before(async () => {
  ({ fixture, client } = await startServerOnAgent());
});
after(() => stopServerOnAgent({ fixture, client }));

/**
 * Opens `text` under a new name; resolves with its diagnostics once the agent's findings are in
 * (a text with syntax errors is not sent to the agent: its local diagnostics are all there is).
 */
async function diagnose(text: string, syntaxErrors = false): Promise<{ uri: string; diagnostics: Diagnostic[] }> {
  const uri = fileUri(fixture.labDir, `fix-${++opened}.lab.yaml`);
  await client.open(uri, text);
  // The local checks publish at once; the agent's validate follows the pause, published with them.
  const diagnostics = await client.waitForDiagnostics(uri, () => true, {
    after: syntaxErrors ? 0 : 1,
    timeoutMs: 20_000,
  });
  return { uri, diagnostics };
}

function applyEdits(text: string, edits: TextEdit[]): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; character: number }) =>
    lines.slice(0, p.line).reduce((sum, l) => sum + l.length + 1, 0) + p.character;
  return [...edits]
    .sort((a, b) => offset(b.range.start) - offset(a.range.start))
    .reduce((t, e) => t.slice(0, offset(e.range.start)) + e.newText + t.slice(offset(e.range.end)), text);
}

/** Lines of `b` that differ from `a`'s, compared line by line (one line added or removed counts as one). */
function changedLines(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  if (x.length === y.length) return x.filter((line, i) => line !== y[i]).length;
  // A line added or removed counts once: as the difference in length, and as the line only one side has.
  return Math.max(
    Math.abs(x.length - y.length),
    x.filter((line) => !y.includes(line)).length,
    y.filter((line) => !x.includes(line)).length,
  );
}

/** Codes of lines set aside: syntax errors, published without the agent's validate (which waits for text that reads). */
const SET_ASIDE = ['tab-indentation', 'unclosed-quote', 'stray-bracket', 'key-without-colon'];

for (const sample of [
  {
    what: 'a template one letter off',
    broken: VALID.replace('template: vios', 'template: vio'),
    code: 'unknown-template',
    title: 'Change template to vios',
  },
  {
    what: 'a node one letter off',
    broken: VALID.replace('edge1:Gi0/0', 'edg1:Gi0/0'),
    code: 'unknown-node',
    title: 'Change node to edge1',
  },
  {
    what: 'an interface the template does not have',
    broken: VALID.replace('core1:Gi0/0', 'core1:Gi0/O'),
    code: 'unknown-interface',
    title: 'Change interface to Gi0/0',
  },
  {
    what: 'an interface past the count',
    broken: VALID.replace('core1:Gi0/0', 'core1:Gi0/5'),
    code: 'interface-out-of-range',
    title: 'Raise ethernet of core1 to 6',
  },
  {
    what: 'an image one character off',
    broken: VALID.replace('template: vios\n', 'template: vios\n    image: vios-adventerprisek9-m.SPA.159-3.M7\n'),
    fixed: VALID.replace('template: vios\n', 'template: vios\n    image: vios-adventerprisek9-m.SPA.159-3.M6\n'),
    code: 'unknown-image',
    title: 'Change image to vios-adventerprisek9-m.SPA.159-3.M6',
  },
  {
    what: 'a network one letter off',
    broken: VALID.replace(
      'links:\n',
      'networks:\n  lan1:\n    type: bridge\nlinks:\n  - endpoints: [core1:Gi0/1, lan]\n',
    ),
    fixed: VALID.replace(
      'links:\n',
      'networks:\n  lan1:\n    type: bridge\nlinks:\n  - endpoints: [core1:Gi0/1, lan1]\n',
    ),
    code: 'unknown-network',
    title: 'Change network to lan1',
  },
  {
    what: 'a tab in place of the indentation of a node line',
    broken: VALID.replace('    template: vios\n  edge1', '\ttemplate: vios\n  edge1'),
    fixed: VALID,
    code: 'tab-indentation',
    title: 'Indent with 4 spaces instead of tabs',
  },
  {
    what: 'a tab typed before the indentation of a link',
    broken: VALID.replace('  - endpoints', '\t  - endpoints'),
    fixed: VALID,
    code: 'tab-indentation',
    title: 'Indent with 2 spaces instead of tabs',
  },
  {
    what: 'an unclosed quote typed as the image of a node',
    broken: VALID.replace('template: vios\n', 'template: vios\n    image: "vios-adventerprisek9-m.SPA.159-3.M6\n'),
    fixed: VALID.replace('template: vios\n', 'template: vios\n    image: "vios-adventerprisek9-m.SPA.159-3.M6"\n'),
    code: 'unclosed-quote',
    title: 'Close the quote with "',
  },
  {
    what: 'an unclosed quote in a link',
    broken: VALID.replace('[core1:Gi0/0, edge1:Gi0/0]', "[core1:Gi0/0, 'edge1:Gi0/0]"),
    fixed: VALID.replace('[core1:Gi0/0, edge1:Gi0/0]', "[core1:Gi0/0, 'edge1:Gi0/0']"),
    code: 'unclosed-quote',
    title: "Close the quote with '",
  },
  {
    what: 'a {} typed after the endpoints of a link',
    broken: VALID.replace('edge1:Gi0/0]', 'edge1:Gi0/0]{} # uplink'),
    fixed: VALID.replace('edge1:Gi0/0]', 'edge1:Gi0/0] # uplink'),
    code: 'stray-bracket',
    title: 'Remove the stray "{}"',
  },
  {
    what: 'a node name typed without its colon',
    broken: VALID.replace('  edge1:\n', '  edge1 # the edge\n'),
    fixed: VALID.replace('  edge1:\n', '  edge1: # the edge\n'),
    code: 'key-without-colon',
    title: 'End the key with a colon (edge1:)',
  },
  {
    what: 'a link written twice',
    broken: `${VALID}  - endpoints: [edge1:Gi0/0, core1:Gi0/0]\n`,
    fixed: VALID,
    code: 'interface-in-use',
    title: 'Remove the duplicate link core1:Gi0/0 – edge1:Gi0/0',
  },
]) {
  test(`quick fix: ${sample.what}`, async () => {
    const { uri, diagnostics } = await diagnose(sample.broken, SET_ASIDE.includes(sample.code));
    const diagnostic = diagnostics.find((d) => d.code === sample.code);
    assert.ok(diagnostic, `a ${sample.code} diagnostic among ${JSON.stringify(diagnostics.map((d) => d.code))}`);
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostic.range,
      context: { diagnostics: [diagnostic] },
    });
    const preferred = actions.find((a) => a.isPreferred);
    assert.equal(preferred?.title, sample.title, JSON.stringify(actions.map((a) => a.title)));
    const fixed = applyEdits(sample.broken, preferred?.edit?.changes?.[uri] ?? []);
    if (sample.fixed) assert.equal(fixed, sample.fixed);
    assert.equal(changedLines(sample.broken, fixed), 1, `one line changed:\n${fixed}`);
    const after = await diagnose(fixed);
    assert.deepEqual(after.diagnostics, [], 'the fixed document has no diagnostics');
    await client.close(uri);
    await client.close(after.uri);
  });
}

test('an unknown node is answered with the closest names, the closest never cut', async () => {
  const nodes = Array.from({ length: 12 }, (_, i) => `  n${i}:\n    template: vios\n`).join('');
  const text = `name: many\nnodes:\n${nodes}  r4:\n    template: vios\nlinks:\n  - endpoints: [r5:Gi0/0, n1:Gi0/0]\n`;
  const uri = fileUri(fixture.labDir, 'closest.lab.yaml');
  await client.open(uri, text);
  const diagnostics = await client.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'unknown-node'));
  const message = diagnostics.find((d) => d.code === 'unknown-node')?.message;
  // The names one edit away, in document order; the first five names (n0 to n4) were listed before.
  assert.equal(message, 'r5 is not a node of this lab; define it under nodes, or did you mean n5 or r4?');
  await client.close(uri);
});

test('quick fix: a startup config that does not exist is created, and the lab then has no diagnostics', async () => {
  const text = VALID.replace('template: vios\n', 'template: vios\n    config: configs/core1.cfg\n');
  const { uri, diagnostics } = await diagnose(text);
  const diagnostic = diagnostics.find((d) => d.code === 'config-not-found');
  assert.ok(diagnostic, JSON.stringify(diagnostics));
  const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: diagnostic.range,
    context: { diagnostics: [diagnostic] },
  });
  const preferred = actions.find((a) => a.isPreferred);
  assert.equal(preferred?.title, 'Create configs/core1.cfg with a minimal config for core1');
  const config = fileUri(fixture.labDir, 'configs/core1.cfg');
  // The edit creates the file and writes into it; the lab itself is not changed.
  const [create, write] = preferred?.edit?.documentChanges ?? [];
  assert.deepEqual(create, { kind: 'create', uri: config, options: { ignoreIfExists: true } });
  assert.ok(write && 'edits' in write && write.textDocument.uri === config);
  assert.equal(preferred?.edit?.changes, undefined);
  await mkdir(join(fixture.labDir, 'configs'));
  await writeFile(fileURLToPath(config), applyEdits('', write.edits as TextEdit[]));
  assert.equal(await readFile(fileURLToPath(config), 'utf8'), 'hostname core1\n!\n');
  const after = await diagnose(text);
  assert.deepEqual(after.diagnostics, [], 'with the config created, no diagnostics');
  await client.close(uri);
  await client.close(after.uri);
});
