/**
 * What the documents tell a newcomer, checked against the software: every
 * command they name exists under that name, every setting they name exists
 * (with the default they state), and the sample's plan summary is what the
 * agent plans for it. The VSIX size is checked where the VSIX is built
 * (test/e2e/suite/docs.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentClient } from '../../common/api/client';
import { parseLab } from '../../common/lab/parse/parse';
import { buildProjectPayload } from '../../common/project-files/payload';
import { planSummaryTitle } from '../../server/services/code-lens';
import { startTestAgent, TEST_USER, type TestAgent } from '../support/agent';

const ROOT = join(__dirname, '..', '..', '..');
const DOCS = [
  'README.md',
  'agent/README.md',
  'test/e2e/README.md',
  'test/eveng/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

interface Manifest {
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    configuration:
      { properties: Record<string, { default?: unknown }> }[] | { properties: Record<string, { default?: unknown }> };
  };
}
const manifest = JSON.parse(read('package.json')) as Manifest;
const settings: Record<string, { default?: unknown }> = Object.assign(
  {},
  ...[manifest.contributes.configuration].flat().map((c) => c.properties),
);

test('every "Lab Agent: …" command the documents name is a command of the extension', () => {
  const titles = new Set(manifest.contributes.commands.map((c) => `${c.category ?? ''}: ${c.title}`));
  let named = 0;
  for (const file of DOCS) {
    for (const match of read(file).matchAll(/\*\*(Lab Agent: [^*]+?)\*\*/g)) {
      named++;
      assert.ok(titles.has(match[1]), `${file} names "${match[1]}", which is no command of package.json`);
    }
  }
  assert.ok(named >= 2, `the documents name ${named} commands; the checker must have read them`);
});

test('every labAgent.* setting the documents name exists, with the default they state', () => {
  const commands = new Set(manifest.contributes.commands.map((c) => c.command));
  let named = 0;
  for (const file of DOCS) {
    const text = read(file);
    for (const match of text.matchAll(/`(labAgent\.[A-Za-z.]+)`(?: \((\d+) s\))?/g)) {
      const [, key, seconds] = match;
      if (commands.has(key)) continue;
      named++;
      assert.ok(key in settings, `${file} names the setting ${key}, which package.json does not contribute`);
      if (seconds !== undefined) {
        assert.equal(settings[key].default, Number(seconds), `${file} says ${key} is ${seconds} s by default`);
      }
    }
  }
  assert.ok(named >= 3, `the documents name ${named} settings; the checker must have read them`);
});

let agent: TestAgent;
let client: AgentClient;
before(async () => {
  // The README's walk is on the agent `npm start` runs: the simulated emulator, whatever the suite's emulator.
  agent = await startTestAgent({ emulator: 'simulated' });
  client = agent.client();
  await client.login(TEST_USER);
});
after(() => agent.stop());

test("README's plan summary of the sample lab is the agent's plan for it", async () => {
  const claimed = /\("(Plan: [^"]+)"\)/.exec(read('README.md'))?.[1];
  assert.ok(claimed, 'README quotes the sample lab’s plan lens');
  const path = join(ROOT, 'samples', 'campus.lab.yaml');
  const text = readFileSync(path, 'utf8');
  const payload = await buildProjectPayload(path, text, parseLab(text));
  // The README's sample has never been deployed from this clone: plan it as a first deploy would.
  delete payload.state;
  const plan = await client.planProject(payload);
  assert.equal(planSummaryTitle(plan), claimed);
});
