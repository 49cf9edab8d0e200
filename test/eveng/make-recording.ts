/**
 * Makes the shipped recording: `node out/test/eveng/make-recording.js DIR`
 * runs the scenario through an agent recording its exchanges with the fake
 * EVE-NG server into DIR (test/eveng/recordings/fake-community is the one in
 * the repository). Not a test: run it when the backend's calls change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeEveServer } from './fake-server';
import { RECORDING_ACCOUNT, runScenario, scenarioAgent } from './scenario';

async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) throw new Error('usage: node out/test/eveng/make-recording.js DIR');
  rmSync(target, { recursive: true, force: true });
  const fake = new FakeEveServer({ users: [RECORDING_ACCOUNT], bootMs: 0 });
  const dataDir = mkdtempSync(join(tmpdir(), 'eve-recording-'));
  try {
    const agent = await scenarioAgent(dataDir, await fake.listen(), resolve(target));
    try {
      console.log(JSON.stringify(await runScenario(agent), null, 2));
    } finally {
      await agent.close();
    }
  } finally {
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
