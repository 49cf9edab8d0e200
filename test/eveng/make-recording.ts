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

async function recordUnetlab(target: string, dataDir: string): Promise<void> {
  const harness = await startUnetlabHarness({ users: [RECORDING_ACCOUNT] });
  try {
    const clock = new StepClock();
    const agent = await fullScenarioAgent(dataDir, harness.url, clock, target);
    let steps;
    try {
      steps = await runFullScenario(agent, clock);
    } finally {
      await agent.close();
    }
    const runtime = harness.runtimeCalls().map((c) => c.args.join(' '));
    const outcome = { server: `dainok/unetlab ${harness.commit}`, steps, runtime };
    writeFileSync(join(target, 'outcome.json'), `${JSON.stringify(outcome, null, 2)}\n`);
    console.log(JSON.stringify(outcome, null, 2));
  } finally {
    await harness.close();
  }
}

async function recordCommunity(target: string, dataDir: string): Promise<void> {
  const harness = await startCommunityHarness({ users: [RECORDING_ACCOUNT] });
  try {
    const clock = new StepClock();
    const agent = await fullScenarioAgent(dataDir, harness.url, clock, target);
    let steps;
    try {
      steps = await runFullScenario(agent, clock, { vmx: true, r2Ram: 1536 });
    } finally {
      await agent.close();
    }
    const runtime = harness.runtimeCalls().map((c) => c.args.join(' '));
    const outcome = { server: `laaaaiiit/eve-ktk ${harness.commit} (EVE-NG Community 6.2.0-4)`, steps, runtime };
    writeFileSync(join(target, 'outcome.json'), `${JSON.stringify(outcome, null, 2)}\n`);
    console.log(JSON.stringify(outcome, null, 2));
    const errors = harness.phpErrors();
    if (errors) console.error(`PHP error log:\n${errors.slice(-5000)}`);
  } finally {
    await harness.close();
  }
}

const RECORDERS = { '--unetlab': recordUnetlab, '--eve-ce': recordCommunity };

async function main(): Promise<void> {
  const flag = process.argv[2] ?? '';
  const recorder = flag in RECORDERS ? RECORDERS[flag as keyof typeof RECORDERS] : undefined;
  const target = process.argv[recorder ? 3 : 2];
  if (!target) throw new Error('usage: node out/test/eveng/make-recording.js [--unetlab | --eve-ce] DIR');
  rmSync(target, { recursive: true, force: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'eve-recording-'));
  try {
    await (recorder ?? recordFake)(resolve(target), dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
