/**
 * A recording of the full scenario played back: the agent runs the scenario
 * against the recorded exchanges and must get every step's recorded outcome,
 * asking for every exchange and nothing else. Shared by the UNetLab and the
 * EVE-NG Community replays.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRecording, ReplayServer } from './replay-server';
import { fullScenarioAgent, runFullScenario, StepClock } from './scenario';

export interface RecordedOutcome {
  server: string;
  steps: { step: string; ok: boolean; result?: unknown; error?: string }[];
  runtime: string[];
}

/** The outcome.json that ships beside a recording. */
export function recordedOutcome(dir: string): RecordedOutcome {
  assert.ok(existsSync(join(dir, 'outcome.json')), `${dir}/outcome.json ships with the repository`);
  return JSON.parse(readFileSync(join(dir, 'outcome.json'), 'utf8')) as RecordedOutcome;
}

export async function replayFullScenario(dir: string, scenario?: Parameters<typeof runFullScenario>[2]): Promise<void> {
  const recorded = recordedOutcome(dir);
  const replay = new ReplayServer(readRecording(dir));
  const url = await replay.listen();
  const dataDir = mkdtempSync(join(tmpdir(), 'eve-replay-'));
  try {
    const clock = new StepClock();
    const agent = await fullScenarioAgent(dataDir, url, clock);
    let steps;
    try {
      steps = await runFullScenario(agent, clock, scenario);
    } finally {
      await agent.close();
    }
    assert.deepEqual(replay.misses, []);
    assert.equal(replay.used.size, replay.exchanges.length, 'every recorded exchange was asked for');
    assert.deepEqual(steps, recorded.steps);
  } finally {
    await replay.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
