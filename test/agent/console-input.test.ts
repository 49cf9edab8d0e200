/**
 * What cannot work is refused up front with a clear message: node and network
 * names an emulator would read as options or cannot use as host names, and
 * console commands a terminal line cannot carry (a NUL, a 200 KB command).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { labYaml, startTestAgent, waitFor, type TestAgent } from '../support/agent';

let agent: TestAgent;
let token: string;
const LAB = '/lab-agent/input.unl';

before(async () => {
  agent = await startTestAgent();
  token = await agent.login();
  assert.equal((await agent.call('POST', '/api/v1/projects/deploy', { yaml: labYaml('input') }, token)).status, 200);
  await agent.call('POST', '/api/v1/projects/exec', { lab: LAB, action: 'start' }, token);
  await waitFor(
    async () => (await agent.call('POST', '/api/v1/projects/status', { lab: LAB }, token)).body.data.running === 3,
    'the nodes to run',
  );
});
after(() => agent.stop());

const long = 'n'.repeat(64);

test('node and network names starting with - or over 63 characters do not validate, each with its reason', async () => {
  const cases: [string, string, RegExp][] = [
    ['name: n1\nnodes:\n  -r1:\n    template: vios\n', 'invalid-node-name', /must not start with -/],
    [`name: n2\nnodes:\n  ${long}:\n    template: vios\n`, 'invalid-node-name', /64 characters long; at most 63/],
    [
      'name: n3\nnodes:\n  r1:\n    template: vios\nnetworks:\n  -net:\n    type: bridge\n',
      'invalid-network-name',
      /must not start with -/,
    ],
    [
      `name: n4\nnodes:\n  r1:\n    template: vios\nnetworks:\n  ${long}:\n    type: bridge\n`,
      'invalid-network-name',
      /at most 63/,
    ],
  ];
  for (const [yaml, code, message] of cases) {
    const reply = await agent.call('POST', '/api/v1/projects/validate', { yaml }, token);
    assert.equal(reply.body.data.status, 'invalid', yaml);
    const found = reply.body.data.diagnostics.find((d: { code: string }) => d.code === code);
    assert.ok(found, `${code} for ${yaml}: ${JSON.stringify(reply.body.data.diagnostics)}`);
    assert.match(found.message, message);
    // And the agent will not deploy it.
    const deploy = await agent.call('POST', '/api/v1/projects/deploy', { yaml }, token);
    assert.equal(deploy.status, 422, yaml);
    assert.equal(deploy.body.code, 'invalid_lab');
  }
  // 63 characters, and - or _ inside a name, are fine.
  const fine = `name: n5\nnodes:\n  ${'n'.repeat(63)}:\n    template: vios\n  _r-2:\n    template: vios\n`;
  const reply = await agent.call('POST', '/api/v1/projects/validate', { yaml: fine }, token);
  assert.equal(reply.body.data.status, 'valid', JSON.stringify(reply.body.data));
});

test('a console command with a NUL or control character, or of 200 KB, is 400 invalid_request naming the field', async () => {
  const cases: [string, RegExp][] = [
    ['show\u0000version', /"command" holds the control character U\+0000 at position 4/],
    ['show version\u001b[A', /U\+001B/],
    ['x'.repeat(200 * 1024), /"command" is 204800 bytes long; a console line takes at most 4095/],
  ];
  for (const [command, message] of cases) {
    const one = await agent.call('POST', '/api/v1/console/exec', { lab: LAB, node: 'r1', command }, token);
    assert.equal(one.status, 400, JSON.stringify(one.body).slice(0, 300));
    assert.equal(one.body.code, 'invalid_request');
    assert.match(one.body.error ?? '', message);
    assert.ok((one.body.error ?? '').length < 300, 'the message does not echo the command');

    const many = await agent.call(
      'POST',
      '/api/v1/console/exec-many',
      {
        lab: LAB,
        targets: [
          { node: 'r2', command: 'show version' },
          { node: 'r1', command },
        ],
      },
      token,
    );
    assert.equal(many.status, 400, JSON.stringify(many.body).slice(0, 300));
    assert.equal(many.body.code, 'invalid_request');
    assert.match(many.body.error ?? '', /"targets\[1\]\.command"/);
  }
  // A tab is text, and a command at the limit runs.
  for (const command of ['show\tversion', `show version ${'x'.repeat(4095 - 13)}`]) {
    const reply = await agent.call('POST', '/api/v1/console/exec', { lab: LAB, node: 'r1', command }, token);
    assert.equal(reply.status, 200, JSON.stringify(reply.body).slice(0, 300));
  }
});
