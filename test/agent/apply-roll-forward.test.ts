/**
 * Crashes of the agent (kill -9 of the built agent in its own process) in the middle of an apply
 * and right after one: the next push rolls the interrupted apply forward from what the emulator
 * has, stopping nothing; what a reply acknowledged is still there after the crash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { journalFile, type JournalEntry } from '../../agent/domain/apply-journal';
import { chainLab, loginTo, makeDataDir, rawCall, spawnAgent, waitFor, type AgentProcess } from '../support/agent';

/** What the running lab has before the push that is cut short. */
const RUNNING = 6;
/** What the push adds: enough steps that, at 50 ms per write, it runs for about a second. */
const ADDED = 40;

function caller(agent: AgentProcess, token: string) {
  return async (path: string, body: unknown) =>
    rawCall(agent.url, agent.certPem, 'POST', path, JSON.stringify(body), token);
}

/** How many nodes of `lab` the simulated emulator has saved in its data directory. */
function savedNodes(dataDir: string, lab: string): number {
  try {
    const state = JSON.parse(readFileSync(join(dataDir, 'emulator-state.json'), 'utf8')) as {
      labs: { path: string; nodes: unknown[] }[];
    };
    return state.labs.find((l) => l.path === lab)?.nodes.length ?? 0;
  } catch {
    return 0;
  }
}

function readJournal(file: string): JournalEntry | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as JournalEntry;
  } catch {
    return undefined;
  }
}

/** Kills the agent as a crash would (if it is not dead already) and waits until it is gone. */
async function killed(agent: AgentProcess): Promise<void> {
  const { child } = agent;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

test(
  'kill -9 mid-push of a running lab: the next push finishes it, and every running node keeps running',
  { timeout: 120_000 },
  async () => {
    const dataDir = makeDataDir();
    const base = chainLab('rollforward', RUNNING);
    const grown = chainLab('rollforward', RUNNING + ADDED);
    let agent = await spawnAgent(dataDir, ['--boot-ms', '10', '--write-delay-ms', '50']);
    try {
      let call = caller(agent, await loginTo(agent));
      const deployed = await call('/api/v1/projects/deploy', { yaml: base });
      assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
      const lab = deployed.body.data.lab as string;
      assert.equal((await call('/api/v1/projects/exec', { yaml: base, action: 'start' })).status, 200);
      await waitFor(
        async () => (await call('/api/v1/projects/status', { yaml: base })).body.data.running === RUNNING,
        'the lab to run',
      );

      // The push, killed once the journal shows two rounds of its steps done and the emulator has
      // saved some of them (its saves follow changes by a moment that grows with load): no sleep decides.
      const file = journalFile(dataDir, lab);
      const pushing = call('/api/v1/projects/reconcile', { yaml: grown }).catch(() => undefined);
      await waitFor(
        async () => (readJournal(file)?.done ?? 0) >= 16 && savedNodes(dataDir, lab) > RUNNING,
        'the journal to show 16 steps done and the emulator to have saved a new node',
      );
      await killed(agent);
      await pushing;
      const left = readJournal(file);
      assert.ok(left && left.done < left.steps, `the push was cut short: ${JSON.stringify(left)}`);
      assert.equal(left.operation, 'reconcile');

      agent = await spawnAgent(dataDir, ['--boot-ms', '10']);
      assert.match(agent.stderr(), /the reconcile started at .* stopped after \d+ of \d+ step\(s\); a push/);
      call = caller(agent, await loginTo(agent));
      const before = (await call('/api/v1/projects/status', { yaml: grown })).body.data;
      assert.equal(before.locked, true, 'the status says the lab is mid-apply');
      assert.ok(before.total > RUNNING, `some of the new nodes are there: ${before.total}`);
      assert.equal(before.running, RUNNING);

      // A pull would drop from the document what was not applied yet; so would exec act on half a lab.
      const pull = await call('/api/v1/projects/reconcile', { yaml: grown, direction: 'from_emu' });
      assert.equal(pull.status, 423, JSON.stringify(pull.body));
      assert.equal(pull.body.code, 'lab_locked_mid_apply');
      assert.match(pull.body.error ?? '', /Push the document first .* Then pull/);
      assert.equal(
        (await call('/api/v1/projects/exec', { yaml: grown, action: 'start' })).body.code,
        'lab_locked_mid_apply',
      );
      const pullPlan = (await call('/api/v1/projects/plan', { yaml: grown, direction: 'from_emu' })).body.data;
      assert.equal(pullPlan.applicable, false);
      assert.equal(pullPlan.locked, true);

      // The plan of the push shows only what is left, and it may be applied.
      const plan = (await call('/api/v1/projects/plan', { yaml: grown })).body.data;
      assert.equal(plan.applicable, true, plan.text);
      assert.equal(plan.locked, false);
      assert.equal(plan.summary.delete, 0, plan.text);
      assert.match(plan.text, /applying this plan finishes it/);
      assert.ok(plan.summary.create > 0 && plan.summary.create < 2 * ADDED, plan.text);

      const pushed = await call('/api/v1/projects/reconcile', { yaml: grown, plan_identity: plan.plan_identity });
      assert.equal(pushed.status, 200, JSON.stringify(pushed.body));
      assert.equal(existsSync(file), false, 'the journal entry is gone');

      const after = (await call('/api/v1/projects/status', { yaml: grown })).body.data;
      assert.equal(after.locked, false);
      assert.equal(after.total, RUNNING + ADDED);
      const running = (after.nodes as { name: string; state: string }[]).filter((n) => n.state === 'running');
      assert.deepEqual(
        running.map((n) => n.name).sort(),
        Array.from({ length: RUNNING }, (_, i) => `n${i}`).sort(),
        'every node that ran before the crash still runs (and no other)',
      );
      const inspected = (await call('/api/v1/projects/inspect', { yaml: grown, refresh: true })).body.data;
      const pulled = (await call('/api/v1/projects/plan', { yaml: grown, direction: 'from_emu' })).body.data;
      assert.deepEqual(pulled.actions, [], `nothing half-made would be pulled: ${pulled.text}`);
      assert.equal(inspected.links.length, RUNNING + ADDED - 1);
      const settled = (await call('/api/v1/projects/plan', { yaml: grown })).body.data;
      assert.deepEqual(
        settled.summary,
        { create: 0, update: 0, delete: 0, unchanged: 2 * (RUNNING + ADDED) - 1 },
        settled.text,
      );
      assert.equal((await call('/api/v1/projects/exec', { yaml: grown, action: 'start' })).status, 200);
    } finally {
      agent.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

test(
  'kill -9 right after a deploy is acknowledged: everything the reply counted is there after the restart',
  { timeout: 120_000 },
  async () => {
    const dataDir = makeDataDir();
    let agent: AgentProcess | undefined;
    try {
      // Several rounds: without the save before the reply, most of them lost elements.
      for (let round = 0; round < 3; round++) {
        agent = await spawnAgent(dataDir);
        const call = caller(agent, await loginTo(agent));
        const yaml = chainLab(`acked${round}`, 30);
        const deployed = await call('/api/v1/projects/deploy', { yaml });
        await killed(agent);
        assert.equal(deployed.status, 200, JSON.stringify(deployed.body));

        agent = await spawnAgent(dataDir);
        const again = caller(agent, await loginTo(agent));
        const status = (await again('/api/v1/projects/status', { yaml })).body.data;
        assert.equal(status.locked, false, `round ${round}: no apply was left unfinished`);
        assert.equal(status.total, deployed.body.data.nodes, `round ${round}: every acknowledged node is there`);
        const inspected = (await again('/api/v1/projects/inspect', { yaml, refresh: true })).body.data;
        assert.equal(
          inspected.links.length,
          deployed.body.data.links,
          `round ${round}: every acknowledged link is there`,
        );
        const plan = (await again('/api/v1/projects/plan', { yaml })).body.data;
        assert.equal(plan.summary.create + plan.summary.update + plan.summary.delete, 0, plan.text);
        await killed(agent);
      }
    } finally {
      agent?.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
