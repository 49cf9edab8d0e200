import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chainLab, withTestAgent } from '../support/agent';

/**
 * Ten identical reads at once all get the same, full answer. That they cost one computation is
 * counted in test/unit/shared-reads.test.ts; how long they take against one read is a figure of
 * `npm run bench agent-load` (no elapsed time is asserted in npm test).
 */
const NODES = 300;
const AT_ONCE = 10;

test('ten identical plan and status calls at once on one lab each get the whole, same answer', async () => {
  await withTestAgent({}, async (agent) => {
    const token = await agent.login();
    const yaml = chainLab('reads', NODES);
    const deployed = await agent.call('POST', '/api/v1/projects/deploy', { yaml }, token);
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body).slice(0, 300));
    const changed = yaml.replace('  n0:\n    ethernet: 2\n', '  n0:\n    ethernet: 3\n');
    for (const [read, body] of [
      ['plan', { yaml: changed }],
      ['status', { yaml }],
    ] as const) {
      const replies = await Promise.all(
        Array.from({ length: AT_ONCE }, () => agent.call('POST', `/api/v1/projects/${read}`, body, token)),
      );
      for (const reply of replies) assert.equal(reply.status, 200, JSON.stringify(reply.body).slice(0, 300));
      const answers = new Set(replies.map((r) => JSON.stringify(r.body.data)));
      assert.equal(answers.size, 1, `${read}: ${AT_ONCE} calls got ${answers.size} different answers`);
    }
    const plan = (await agent.call('POST', '/api/v1/projects/plan', { yaml: changed }, token)).body.data;
    assert.ok(plan.operations.length > 0, 'the changed lab has something to plan');
  });
});
