import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chainLab, labYaml, type TestAgent, withTestAgent } from '../support/agent';

/** A small lab with a long comment: over 256 KiB as a request body, so it is validated on a worker thread. */
const LARGE = `# ${'padding '.repeat(40_000)}\n${labYaml('large')}`;
/** About 2 MB: far more than a small worker heap holds. */
const HUGE = chainLab('huge', 27_000);
/** --max-validate-memory for the test: LARGE fits, HUGE does not. */
const HEAP_MB = 32;

function validate(agent: TestAgent, yaml: string, token: string) {
  return agent.call('POST', '/api/v1/projects/validate', { yaml }, token);
}

test('a validate worker that runs out of memory answers memory-limit, and a fresh worker takes the next document', async () => {
  await withTestAgent({ validateHeapMb: HEAP_MB }, async (agent) => {
    const token = await agent.login();
    assert.ok(Buffer.byteLength(JSON.stringify({ yaml: LARGE })) > 256 * 1024);
    const died = await validate(agent, HUGE, token);
    assert.equal(died.status, 200, JSON.stringify(died.body).slice(0, 300));
    assert.equal(died.body.data.status, 'invalid');
    assert.equal(died.body.data.diagnostics[0].code, 'memory-limit');
    assert.match(died.body.data.diagnostics[0].message, new RegExp(`more than the ${HEAP_MB} MB`));
    for (let i = 0; i < 3; i++) {
      const next = await validate(agent, LARGE, token);
      assert.equal(next.status, 200, JSON.stringify(next.body).slice(0, 300));
      assert.equal(next.body.data.status, 'valid', JSON.stringify(next.body.data.diagnostics).slice(0, 300));
    }
    assert.equal((await agent.call('GET', '/api/v1/health')).status, 200);
  });
});

test('large validates beyond what the workers and their queue take get 503 agent_busy; the rest are answered', async () => {
  await withTestAgent({}, async (agent) => {
    const token = await agent.login();
    // Two workers, four waiting: of twelve at once, some must be turned away.
    const replies = await Promise.all(Array.from({ length: 12 }, () => validate(agent, LARGE, token)));
    const busy = replies.filter((r) => r.status === 503);
    const answered = replies.filter((r) => r.status === 200);
    assert.equal(busy.length + answered.length, replies.length, JSON.stringify(replies.map((r) => r.status)));
    assert.ok(busy.length > 0, 'nothing was turned away');
    assert.ok(answered.length >= 6, `only ${answered.length} answered`);
    for (const reply of busy) {
      assert.equal(reply.body.code, 'agent_busy');
      assert.match(reply.body.error ?? '', /Try again shortly/);
    }
    for (const reply of answered) assert.equal(reply.body.data.status, 'valid');
    // Once they are done, the pool takes work again.
    assert.equal((await validate(agent, LARGE, token)).body.data.status, 'valid');
  });
});
