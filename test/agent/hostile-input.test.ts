import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_BODY_BYTES } from '../../common/api/contract';
import { LAB_PATH_MAX_LENGTH, labPathProblem } from '../../common/api/lab-path';
import { chainLab, sendRawTls, waitFor, type TestAgent, startWithToken } from '../support/agent';

let agent: TestAgent;
let token: string;
before(async () => ({ agent, token } = await startWithToken()));
after(() => agent.stop());

const envelopeOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

test('a call without a bearer is refused from its headers: unauthenticated, before its body is read', async () => {
  // The head promises 32 MiB but only a few bytes follow: an agent that read the body first would never
  // answer (sendRawTls's guard then closes the socket, and the status is 0), so an answer proves the order.
  const head =
    'POST /api/v1/projects/validate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n' +
    `Content-Length: ${MAX_BODY_BYTES}\r\n\r\n`;
  const reply = await sendRawTls(agent, head, (socket) => socket.write('{"yaml":'));
  assert.equal(reply.status, 401);
  assert.equal(envelopeOf(reply.text).code, 'unauthenticated');
  assert.match(reply.text, /[Cc]onnection: close/);

  // A malformed body without a bearer is unauthenticated too, not invalid_json.
  for (const raw of ['{"yaml":', 'null']) {
    const bad = await sendRawTls(
      agent,
      `POST /api/v1/projects/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${raw.length}\r\n\r\n${raw}`,
    );
    assert.equal(bad.status, 401, raw);
    assert.equal(envelopeOf(bad.text).code, 'unauthenticated', raw);
  }
});

test('a login body is small: over 64 KiB it is 413 payload_too_large', async () => {
  const reply = await agent.call('POST', '/api/v1/login', { username: 'lab', password: 'x'.repeat(70 * 1024) });
  assert.equal(reply.status, 413);
  assert.equal(reply.body.code, 'payload_too_large');
  assert.equal((await agent.call('POST', '/api/v1/login', { username: 'lab', password: 'lab' })).status, 200);
});

test('lab paths with empty or blank segments, or too long, are 400 invalid_request on every call', async () => {
  const bad = ['//x.unl', '/ .unl', '/a//b/ /.unl', '/.unl', `/${'a'.repeat(100 * 1024)}.unl`, '/a/b.unl/'];
  for (const lab of bad) {
    assert.ok(labPathProblem(lab), lab.slice(0, 40));
    for (const path of ['/api/v1/projects/status', '/api/v1/projects/import']) {
      const reply = await agent.call('POST', path, { lab }, token);
      assert.equal(reply.status, 400, `${path} ${lab.slice(0, 40)}`);
      assert.equal(reply.body.code, 'invalid_request');
      assert.ok((reply.body.error ?? '').length < 400, 'the message does not echo a huge path');
    }
  }
  assert.match(labPathProblem(`/${'a'.repeat(LAB_PATH_MAX_LENGTH)}.unl`) ?? '', /at most 255/);
  for (const good of ['/examples/campus.unl', '/lab-agent/my lab.unl', '/a/b c/d+e_f-g.unl']) {
    assert.equal(labPathProblem(good), undefined, good);
  }
  const ok = await agent.call('POST', '/api/v1/projects/status', { lab: '/examples/campus.unl' }, token);
  assert.equal(ok.status, 200);
});

test('a config path with a NUL or another control character does not validate', async () => {
  for (const config of ['configs/r1\u0000.cfg', 'configs/r1\n.cfg']) {
    const yaml = `name: nul\nnodes:\n  r1:\n    template: vios\n    config: ${JSON.stringify(config)}\n`;
    const reply = await agent.call(
      'POST',
      '/api/v1/projects/validate',
      { yaml, files: { [config]: 'hostname r1\n' } },
      token,
    );
    assert.equal(reply.body.data.status, 'invalid', JSON.stringify(config));
    assert.ok(
      reply.body.data.diagnostics.some((d: { code: string }) => d.code === 'invalid-config-path'),
      JSON.stringify(reply.body.data.diagnostics),
    );
  }
});

test("requests Node's HTTP parser refuses get the envelope: 400 invalid_request, 431 headers_too_large", async () => {
  for (const head of [
    'GARBAGE\r\n\r\n',
    'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    'GET /api/v1/health HTTP/1.1\r\nBad Header\r\n\r\n',
  ]) {
    const reply = await sendRawTls(agent, head);
    assert.equal(reply.status, 400, head);
    assert.deepEqual(Object.keys(envelopeOf(reply.text)).sort(), ['code', 'error', 'ok']);
    assert.equal(envelopeOf(reply.text).code, 'invalid_request', head);
  }
  const large = await sendRawTls(
    agent,
    `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
  );
  assert.equal(large.status, 431);
  assert.equal(envelopeOf(large.text).code, 'headers_too_large');
  assert.equal((await agent.call('GET', '/api/v1/health')).status, 200);
});

test('console calls ignore fields the ConsolePayload does not have; an empty node is invalid_request', async () => {
  const deployed = await agent.call('POST', '/api/v1/projects/deploy', { yaml: chainLab('consoles', 2) }, token);
  assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
  const lab = deployed.body.data.state.lab as string;
  await agent.call('POST', '/api/v1/projects/exec', { lab, action: 'start', node: 'n0' }, token);
  await waitFor(
    async () => (await agent.call('POST', '/api/v1/projects/status', { lab }, token)).body.data.running === 1,
    'n0 to run',
  );
  const strays = { id: 'seven', prune: 'yes', refresh: 1, replace: 'no', wipe: [], plan_identity: 5, stopmode: 'x' };
  const attach = await agent.call('POST', '/api/v1/console/attach', { lab, node: 'n0', ...strays }, token);
  assert.equal(attach.status, 200, JSON.stringify(attach.body));
  const exec = await agent.call(
    'POST',
    '/api/v1/console/exec',
    { lab, node: 'n0', command: 'hostname', ...strays },
    token,
  );
  assert.equal(exec.status, 200, JSON.stringify(exec.body));
  const many = await agent.call(
    'POST',
    '/api/v1/console/exec-many',
    { lab, targets: [{ node: 'n0', command: 'hostname' }], ...strays },
    token,
  );
  assert.equal(many.status, 200, JSON.stringify(many.body));

  // Attach and exec act on one node (decisions §3): omitted or empty is not "all nodes".
  for (const node of [undefined, '']) {
    for (const [path, extra] of [
      ['/api/v1/console/attach', {}],
      ['/api/v1/console/exec', { command: 'show clock' }],
    ] as const) {
      const reply = await agent.call('POST', path, { lab, node, ...extra }, token);
      assert.equal(reply.status, 400, `${path} ${String(node)}`);
      assert.equal(reply.body.code, 'invalid_request');
    }
  }
});

test('a document nested too deeply is a clear diagnostic (validate) and invalid_lab (plan), not a stack overflow', async () => {
  const depth = 100 * 1024;
  const yaml = `name: deep\nnodes:\n  r1:\n    template: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
  const validated = await agent.call('POST', '/api/v1/projects/validate', { yaml }, token);
  assert.equal(validated.status, 200);
  assert.equal(validated.body.data.status, 'invalid');
  assert.deepEqual(
    validated.body.data.diagnostics.map((d: { code: string }) => d.code),
    ['nesting-too-deep'],
  );
  assert.doesNotMatch(JSON.stringify(validated.body), /call stack/);
  const planned = await agent.call('POST', '/api/v1/projects/plan', { yaml }, token);
  assert.equal(planned.status, 422);
  assert.equal(planned.body.code, 'invalid_lab');
  assert.equal(planned.body.data.diagnostics[0].code, 'nesting-too-deep');
  // Brackets inside quotes and comments do not count.
  const quoted = `name: fine # [[[[\ndescription: "${'['.repeat(200)}"\nnodes:\n  r1: {template: vios}\n`;
  const fine = await agent.call('POST', '/api/v1/projects/validate', { yaml: quoted }, token);
  assert.equal(fine.body.data.status, 'valid', JSON.stringify(fine.body.data.diagnostics));
});
