/**
 * Documents are bounded by the work they cause, not by their length (decisions §5): a
 * 10,000-node lab of over 2 MiB is read, planned and deployed; hostile documents of the
 * same size are refused with the limit they hit while the agent keeps answering; and
 * every validate reply stays within what the extension's client accepts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_BODY_BYTES } from '../../common/api/contract';
import { MAX_ALIASES, MAX_DIAGNOSTICS, MAX_FLOW_NESTING } from '../../common/project-files/document-limits';
import { generatedProject } from '../bench/support/labs';
import { chainLab, rawCall, type TestAgent, withTestAgent } from '../support/agent';

const MiB = 1024 * 1024;
/** The generated 10,000-node lab with its startup configs; its images are ones the simulated emulator offers. */
const BIG = generatedProject(10_000);
/** A 2.3 MB lab of 200,000 one-line nodes without a template: one missing-template error each. */
const TEMPLATELESS = `name: templateless\nnodes:\n${Array.from({ length: 200_000 }, (_, i) => `  n${i}: {}\n`).join('')}`;

type Diagnostic = { code: string; severity: string; message: string };

function validate(agent: TestAgent, body: unknown, token: string) {
  return agent.call('POST', '/api/v1/projects/validate', body, token);
}

/** The same size as BIG, but each alias fans out: one anchor, hundreds of thousands of references. */
function aliasFanOut(bytes: number): string {
  const head = 'name: fan-out\ndefaults: &d {cpu: 1}\nnodes:\n';
  const lines: string[] = [];
  for (let i = 0, size = head.length; size < bytes; i++) {
    const line = `  n${i}: {template: vios, ram: *d, cpu: *d, icon: *d}\n`;
    lines.push(line);
    size += line.length;
  }
  return head + lines.join('');
}

/** Brackets nested as deep as the document is long. */
function deepNesting(bytes: number): string {
  const depth = Math.floor(bytes / 2);
  return `name: deep\nnodes:\n  r1:\n    template: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
}

test('a generated 10,000-node lab of over 2 MiB validates with 0 errors, plans and deploys on the simulated emulator', async () => {
  await withTestAgent({ writeDelayMs: 0 }, async (agent) => {
    assert.ok(BIG.yaml.length > 2 * MiB, `the lab has ${BIG.yaml.length} characters`);
    const client = await agent.loggedIn();
    const validated = await client.validateProject(BIG, { timeoutMs: 300_000 });
    const errors = (validated.diagnostics ?? []).filter((d) => d.severity === 'error');
    assert.deepEqual(errors, []);
    assert.equal(validated.status, 'valid');

    const plan = await client.planProject(BIG, { timeoutMs: 300_000 });
    assert.ok((plan.summary?.create ?? 0) > 10_000, JSON.stringify(plan.summary));
    assert.equal(plan.blocked?.length ?? 0, 0);

    const deployed = await client.deployProject(BIG, { timeoutMs: 600_000 });
    assert.equal(deployed.nodes, 10_000);
    const status = await client.getProjectStatus({ lab: deployed.lab }, { timeoutMs: 60_000 });
    assert.equal(status.total, 10_000);
    // Nothing left to do: the lab as deployed is the lab as written.
    const again = await client.planProject({ ...BIG, state: deployed.state }, { timeoutMs: 300_000 });
    assert.deepEqual([again.summary?.create, again.summary?.update, again.summary?.delete], [0, 0, 0]);
  });
});

test('hostile documents as large as that lab are refused with the limit they hit, by validate, plan and deploy', async () => {
  await withTestAgent({}, async (agent) => {
    const token = await agent.login();
    for (const [yaml, code, limit] of [
      [deepNesting(BIG.yaml.length), 'nesting-too-deep', MAX_FLOW_NESTING],
      [aliasFanOut(BIG.yaml.length), 'too-many-aliases', MAX_ALIASES],
    ] as const) {
      assert.ok(yaml.length > 2 * MiB);
      const validated = await validate(agent, { yaml }, token);
      assert.equal(validated.status, 200, code);
      assert.equal(validated.body.data.status, 'invalid');
      const diagnostics = validated.body.data.diagnostics as Diagnostic[];
      assert.deepEqual(
        diagnostics.map((d) => d.code),
        [code],
      );
      assert.match(diagnostics[0].message, new RegExp(`\\b${limit}\\b`), 'the message names the limit');
      for (const path of ['/api/v1/projects/plan', '/api/v1/projects/deploy']) {
        const refused = await agent.call('POST', path, { yaml }, token);
        assert.equal(refused.status, 422, `${path} ${code}`);
        assert.equal(refused.body.code, 'invalid_lab');
        assert.equal(refused.body.data.diagnostics[0].code, code);
      }
    }
  });
});

test('a document that runs a worker out of memory or time names that limit, and health answers meanwhile', async () => {
  // A 27,000-node lab needs far more than 32 MB of heap, and seconds (not half of one) to read.
  for (const [options, code, limit] of [
    [{ validateHeapMb: 32 }, 'memory-limit', /32 MB/],
    [{ validateSeconds: 0.5 }, 'time-limit', /0\.5 s/],
  ] as const) {
    await withTestAgent(options, async (agent) => {
      const token = await agent.login();
      let settled = false;
      const hostile = validate(agent, { yaml: chainLab('costly', 27_000) }, token).finally(() => (settled = true));
      // Health, one call after the other, for as long as the worker works: the event loop stays free.
      let answeredMeanwhile = 0;
      while (!settled) {
        const health = await agent.call('GET', '/api/v1/health');
        assert.equal(health.status, 200);
        if (!settled) answeredMeanwhile++;
      }
      const reply = await hostile;
      assert.equal(reply.status, 200, JSON.stringify(reply.body).slice(0, 300));
      assert.equal(reply.body.data.status, 'invalid');
      const diagnostics = reply.body.data.diagnostics as Diagnostic[];
      assert.deepEqual(
        diagnostics.map((d) => d.code),
        [code],
      );
      assert.match(diagnostics[0].message, limit);
      assert.ok(answeredMeanwhile >= 1, `health answered ${answeredMeanwhile} times while the worker worked`);
      // The same document is invalid_lab with that diagnostic for a call that needs it.
      const planned = await agent.call('POST', '/api/v1/projects/plan', { yaml: chainLab('costly', 27_000) }, token);
      assert.equal(planned.status, 422);
      assert.equal(planned.body.data.diagnostics[0].code, code);
    });
  }
});

test('30 MB of deep JSON in files is refused as too deeply nested, before a worker builds it', async () => {
  await withTestAgent({}, async (agent) => {
    const token = await agent.login();
    const depth = 15 * MiB;
    const raw = `{"yaml":"name: x\\n","files":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    assert.ok(raw.length > 30_000_000 && raw.length < MAX_BODY_BYTES);
    const sent = await rawCall(agent.url, agent.certPem, 'POST', '/api/v1/projects/validate', raw, token);
    assert.equal(sent.status, 400, JSON.stringify(sent.body).slice(0, 300));
    assert.equal(sent.body.code, 'invalid_request');
    assert.match(sent.body.error ?? '', /more than 64 levels deep/);
    assert.equal((await validate(agent, { yaml: chainLab('fine', 2) }, token)).body.data.status, 'valid');
  });
});

test('validate replies are capped: 200,000 template-less nodes give MAX_DIAGNOSTICS, a summary, and a reply the client reads', async () => {
  // Reading 200,000 nodes takes 10-50 s on a busy 2-core machine: the default time limit is not what is tested here.
  await withTestAgent({ validateSeconds: 600 }, async (agent) => {
    const client = await agent.loggedIn();
    const reply = await client.validateProject({ yaml: TEMPLATELESS, files: {} }, { timeoutMs: 300_000 });
    assert.equal(reply.status, 'invalid');
    const diagnostics = reply.diagnostics ?? [];
    assert.equal(diagnostics.length, MAX_DIAGNOSTICS);
    assert.ok(diagnostics.slice(0, -1).every((d) => d.code === 'missing-template'));
    const summary = diagnostics.at(-1);
    assert.equal(summary?.code, 'more-problems');
    assert.match(summary?.message ?? '', /^199001 more problems/);
    assert.ok(Buffer.byteLength(JSON.stringify(reply)) < MAX_BODY_BYTES / 100);
    // Deploy's invalid_lab carries the same capped list.
    const token = await agent.login();
    const refused = await agent.call('POST', '/api/v1/projects/deploy', { yaml: TEMPLATELESS }, token);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.data.diagnostics.length, MAX_DIAGNOSTICS);
  });
});
