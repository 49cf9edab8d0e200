import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CapabilitiesData } from '../../common/api/contract';
import { consoleRows } from '../../client/model/console-rows';

const caps: CapabilitiesData = {
  features: { consoles: true, console_exec: true, console_stream: true },
  projectModes: { managed: { console: true } },
};
const lab = { uri: 'file:///w/campus.lab.yaml', mode: 'managed' as const };
const data = {
  lab: '/lab-agent/campus.unl',
  consoles: [
    {
      node: 'r1',
      name: 'r1',
      id: 1,
      console_type: 'telnet',
      state: 'running',
      url: 'telnet://10.0.0.1:32769',
      attachable: true,
    },
    { node: 'r2', name: 'R2 core', id: 2, console_type: 'telnet', state: 'stopped', attachable: true },
    { node: 'pc', id: 3, console_type: 'vnc', state: 'running', attachable: false },
    { name: 'no node: skipped' },
  ],
};

test('running, attachable consoles can be opened and run commands', () => {
  const rows = consoleRows(lab, data, caps);
  assert.deepEqual(
    rows.map((r) => [r.label, r.description, r.contextValue, r.icon]),
    [
      ['r1', 'telnet · running', 'console attach consoleExec', 'terminal'],
      ['r2', 'telnet · stopped · not attachable', 'console', 'terminal'],
      ['pc', 'vnc · running · not attachable', 'console', 'terminal'],
    ],
  );
  assert.deepEqual(rows[0].data, { uri: lab.uri, node: 'r1' });
  assert.equal(rows[0].iconColor, undefined);
  assert.equal(rows[1].iconColor, 'disabledForeground');
  assert.match(rows[1].tooltip ?? '', /R2 core/);
  assert.match(rows[1].tooltip ?? '', /Start the node/);
});

test('without console_stream the console cannot be attached; without console_exec no commands', () => {
  const noStream = consoleRows(lab, data, { ...caps, features: { consoles: true, console_exec: true } });
  assert.equal(noStream[0].contextValue, 'console consoleExec');
  const noExec = consoleRows(lab, data, { ...caps, features: { consoles: true, console_stream: true } });
  assert.equal(noExec[0].contextValue, 'console attach');
});
