import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderInspection, renderOpen, renderStatus, validationLines } from '../../client/model/report-text';

test('status is a header and an aligned node table', () => {
  const text = renderStatus(
    {
      lab: '/lab-agent/campus.unl',
      exists: true,
      state: 'partial',
      running: 1,
      total: 2,
      nodes: [
        { name: 'r1', id: 1, template: 'vios', image: 'vios-15.9', state: 'running', console: 'telnet' },
        { name: 'switch-22', id: 2, template: 'viosl2', state: 'stopped' },
      ],
    },
    'campus',
  );
  const lines = text.trimEnd().split('\n');
  assert.equal(lines[0], 'Status of campus');
  assert.equal(lines[2], 'State:   partial');
  assert.equal(lines[3], 'Running: 1 of 2 nodes');
  assert.equal(lines[5], 'NODE       ID  STATE    TEMPLATE  IMAGE      CONSOLE');
  assert.equal(lines[6], 'r1         1   running  vios      vios-15.9  telnet');
  assert.equal(lines[7], 'switch-22  2   stopped  viosl2    -          -');
});

test('a lab that does not exist says it is not deployed', () => {
  assert.equal(
    renderStatus({ exists: false, lab: '/lab-agent/x.unl' }, 'x'),
    'x: not deployed (emulator lab /lab-agent/x.unl does not exist).\n',
  );
  assert.match(renderInspection({ exists: false }, 'x'), /not deployed/);
  assert.match(renderOpen({ exists: false }, 'x'), /not deployed/);
});

test('inspect lists nodes, interfaces, networks and links, and says when it is cached', () => {
  const text = renderInspection(
    {
      lab: '/lab-agent/campus.unl',
      exists: true,
      cached: true,
      observed_at: '2025-01-01T10:00:00Z',
      nodes: [
        {
          name: 'r1',
          id: 1,
          state: 'running',
          cpu: 1,
          ram: 512,
          ethernet: 4,
          interfaces: [{ name: 'Gi0/0', index: 0, network: 'net1', peer: 'r2:Gi0/0' }],
        },
      ],
      networks: [{ name: 'net1', type: 'bridge', id: 1 }],
      links: [{ a: 'r1:Gi0/0', b: 'r2:Gi0/0' }],
    },
    'campus',
  );
  assert.match(text, /\(cached; use Refresh for a fresh look\)/);
  assert.match(text, /^ {2}r1\s+1\s+running\s+-\s+-\s+1\s+512\s+4\s+-$/m);
  assert.match(text, /^ {2}r1\s+Gi0\/0\s+0\s+net1\s+r2:Gi0\/0$/m);
  assert.match(text, /^ {2}net1\s+bridge\s+1$/m);
  assert.match(text, /^ {2}r1:Gi0\/0 -- r2:Gi0\/0$/m);
});

test('open shows the web address', () => {
  assert.match(
    renderOpen({ exists: true, name: 'campus', url: 'https://emu/#/lab/1', nodes: [] }, 'campus'),
    /Web: https:\/\/emu\/#\/lab\/1/,
  );
});

test('validate diagnostics are located by their path', () => {
  assert.deepEqual(
    validationLines({
      status: 'invalid',
      diagnostics: [
        { path: ['nodes', 'r1', 'image'], message: 'unknown image', severity: 'error', code: 'unknown_image' },
        { message: 'no name' },
      ],
    }),
    ['error: nodes.r1.image: unknown image [unknown_image]', 'error: (document): no name'],
  );
});
