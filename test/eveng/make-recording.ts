/**
 * Makes the shipped recordings (not a test: run it when the backend's calls change):
 *
 *   node out/test/eveng/make-recording.js DIR
 *     the short scenario (scenario.ts `runScenario`) against the fake EVE-NG server
 *     (test/eveng/recordings/fake-community is the one in the repository);
 *   UNETLAB_SRC=<git clone of dainok/unetlab> node out/test/eveng/make-recording.js --unetlab DIR
 *     the full scenario (`runFullScenario`) against UNetLab's own API code under the harness
 *     (test/eveng/harness/); DIR/outcome.json keeps each step's outcome and what the PHP asked of
 *     the node runtime, which replay.test.ts checks (test/eveng/recordings/unetlab);
 *   EVENG_SRC=<git clone of laaaaiiit/eve-ktk> node out/test/eveng/make-recording.js --eve-ce DIR
 *     the same, with a vMX node, against EVE-NG Community 6.2.0-4's own API code under the
 *     community harness (test/eveng/recordings/eve-ce, checked by replay-eve-ce.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeEveServer } from './fake-server';
import { startCommunityHarness } from './harness/community-harness';
import type { HarnessAccount, ServedHarness } from './harness/harness-home';
import { startUnetlabHarness } from './harness/unetlab-harness';
import {
  fullScenarioAgent,
  RECORDING_ACCOUNT,
  runFullScenario,
  runScenario,
  scenarioAgent,
  StepClock,
} from './scenario';

async function recordFake(target: string, dataDir: string): Promise<void> {
  const fake = new FakeEveServer({ users: [RECORDING_ACCOUNT], bootMs: 0 });
  try {
    const agent = await scenarioAgent(dataDir, await fake.listen(), target);
    try {
      console.log(JSON.stringify(await runScenario(agent), null, 2));
    } finally {
      await agent.close();
    }
  } finally {
    await fake.close();
  }
}

/** A server under its harness, as a recording runs it: how it starts, how the outcome names it, the scenario's options. */
interface HarnessedServer {
  start(options: { users: HarnessAccount[] }): Promise<ServedHarness>;
  server(commit: string): string;
  scenario?: Parameters<typeof runFullScenario>[2];
  /** Print the tail of the PHP error log (UNetLab's always holds its own templates' parse errors). */
  printPhpErrors?: boolean;
}

/** The servers by their flag. */
const HARNESSED = new Map<string, HarnessedServer>([
  ['--unetlab', { start: startUnetlabHarness, server: (commit) => `dainok/unetlab ${commit}` }],
  [
    '--eve-ce',
    {
      start: startCommunityHarness,
      server: (commit) => `laaaaiiit/eve-ktk ${commit} (EVE-NG Community 6.2.0-4)`,
      scenario: { vmx: true, r2Ram: 1536 },
      printPhpErrors: true,
    },
  ],
]);

/** The full scenario against a server under its harness; DIR/outcome.json keeps each step's outcome and the runtime calls. */
async function recordHarnessed(served: HarnessedServer, target: string, dataDir: string): Promise<void> {
  const harness = await served.start({ users: [RECORDING_ACCOUNT] });
  try {
    const clock = new StepClock();
    const agent = await fullScenarioAgent(dataDir, harness.url, clock, target);
    let steps;
    try {
      steps = await runFullScenario(agent, clock, served.scenario);
    } finally {
      await agent.close();
    }
    const runtime = harness.runtimeCalls().map((c) => c.args.join(' '));
    const outcome = { server: served.server(harness.commit), steps, runtime };
    writeFileSync(join(target, 'outcome.json'), `${JSON.stringify(outcome, null, 2)}\n`);
    console.log(JSON.stringify(outcome, null, 2));
    const errors = served.printPhpErrors ? harness.phpErrors() : '';
    if (errors) console.error(`PHP error log:\n${errors.slice(-5000)}`);
  } finally {
    await harness.close();
  }
}

async function main(): Promise<void> {
  const flag = process.argv[2] ?? '';
  const served = HARNESSED.get(flag);
  const target = process.argv[served ? 3 : 2];
  if (!target) throw new Error('usage: node out/test/eveng/make-recording.js [--unetlab | --eve-ce] DIR');
  rmSync(target, { recursive: true, force: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'eve-recording-'));
  try {
    await (served ? recordHarnessed(served, resolve(target), dataDir) : recordFake(resolve(target), dataDir));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
