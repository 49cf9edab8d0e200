import { test } from 'node:test';
import assert from 'node:assert/strict';
import { captureFileName, captureFolder } from '../../client/capture/capture-file';
import { agentRow, NewestRows, parsePacketRow, ROW_CAP, rowMatches } from '../../client/capture/packet-rows';

const at = new Date('2026-11-26T19:30:05.123Z');

test('a capture file is named by lab, targets and UTC time, with characters every file system takes', () => {
  assert.equal(captureFileName('ospf', ['r1:eth1'], at), 'ospf_r1-eth1_2026-11-26T19-30-05Z.pcapng');
  assert.equal(captureFileName('ospf', ['r1:eth1', 'r2:eth0'], at), 'ospf_r1-eth1+r2-eth0_2026-11-26T19-30-05Z.pcapng');
  // Interface names of other vendors, a lab name with spaces and slashes.
  assert.equal(
    captureFileName('my lab/../x', ['sw 1:Gi0/0/1', 'r:e\\1'], at),
    'my-lab-..-x_sw-1-Gi0-0-1+r-e-1_2026-11-26T19-30-05Z.pcapng',
  );
  assert.equal(captureFileName('', [':'], at), 'x_x_2026-11-26T19-30-05Z.pcapng');
});

test('a capture of many targets names three and counts the rest; long names are cut', () => {
  const targets = ['r1:eth0', 'r1:eth1', 'r2:eth0', 'r2:eth1', 'r3:eth0'];
  assert.equal(captureFileName('ospf', targets, at), 'ospf_r1-eth0+r1-eth1+r2-eth0+2-more_2026-11-26T19-30-05Z.pcapng');
  const long = captureFileName('l'.repeat(300), ['n'.repeat(300) + ':eth0'], at);
  assert.ok(long.length < 255, `${long.length} characters`);
});

test('the capture folder: the default, relative to the workspace folder, or absolute', () => {
  assert.equal(captureFolder('', '/w'), '/w/captures');
  assert.equal(captureFolder(' pcaps/lab1 ', '/w'), '/w/pcaps/lab1');
  assert.equal(captureFolder('/var/tmp/caps', '/w'), '/var/tmp/caps');
});

test('a tshark line is a row; other lines are not; a tab in the info column stays in it', () => {
  const line = ['7', '1795721086.361549920', 'r1:eth1', '10.0.1.1', '224.0.0.5', 'OSPF', 'Hello Packet'].join('\t');
  assert.deepEqual(parsePacketRow(line), {
    no: 7,
    time: '1795721086.361549920',
    interface: 'r1:eth1',
    source: '10.0.1.1',
    destination: '224.0.0.5',
    protocol: 'OSPF',
    info: 'Hello Packet',
  });
  assert.equal(parsePacketRow(`${line}\tmore`)?.info, 'Hello Packet\tmore');
  assert.equal(parsePacketRow('Running as user "root" and group "root".'), undefined);
  assert.equal(parsePacketRow(['x', '1', 'i', 's', 'd', 'p', 'i'].join('\t')), undefined);
  assert.equal(parsePacketRow(''), undefined);
});

test('the row window keeps the newest rows up to its cap, and counts them all', () => {
  const rows = new NewestRows<number>(ROW_CAP);
  for (let i = 1; i <= 100_000; i++) rows.push(i);
  const taken = rows.take();
  assert.equal(taken.length, ROW_CAP);
  assert.equal(taken[0], 100_000 - ROW_CAP + 1);
  assert.equal(taken.at(-1), 100_000);
  assert.equal(rows.total, 100_000);
  // Taken out: the next take has only what came since.
  rows.push(100_001);
  assert.deepEqual(rows.take(), [100_001]);
  assert.deepEqual(rows.take(), []);
});

test('the row window holds a bounded array however many rows pass', () => {
  const rows = new NewestRows<number>(8);
  let largest = 0;
  for (let i = 0; i < 10_000; i++) {
    rows.push(i);
    largest = Math.max(largest, (rows as unknown as { items: number[] }).items.length);
  }
  assert.ok(largest <= 10, `held ${largest} rows for a cap of 8`);
  assert.deepEqual(rows.take(), [9992, 9993, 9994, 9995, 9996, 9997, 9998, 9999]);
});

test("a line of the agent's summaries is a row; other lines (the last one, junk) are not", () => {
  const line = {
    no: 3,
    time: '1795751985.797578837',
    interface: 'r1:eth1',
    source: '10.0.1.10',
    destination: '10.0.2.10',
    protocol: 'ICMP',
    info: 'Echo (ping) request',
  };
  assert.deepEqual(agentRow(line), line, 'a row is the summary as the agent sent it');
  assert.equal(agentRow({ end: 'complete', packets: 3 }), undefined);
  assert.equal(agentRow({ no: 0 }), undefined);
  assert.equal(agentRow(null), undefined);
  assert.equal(agentRow('x'), undefined);
  // Missing or wrong columns are empty, never a crash.
  assert.deepEqual(agentRow({ no: 1, info: 5 }), {
    no: 1,
    time: '',
    interface: '',
    source: '',
    destination: '',
    protocol: '',
    info: '',
  });
});

test('the text filter matches a column in any case; empty matches every row', () => {
  const row = agentRow({ no: 12, interface: 'r1:eth1', source: '10.0.1.1', protocol: 'OSPF', info: 'Hello Packet' });
  assert.ok(row);
  assert.ok(rowMatches(row, ''));
  assert.ok(rowMatches(row, 'ospf'));
  assert.ok(rowMatches(row, ' hello '));
  assert.ok(rowMatches(row, '10.0.1.1'));
  assert.ok(rowMatches(row, 'R1:ETH1'));
  assert.equal(rowMatches(row, 'icmp'), false);
});

test('peek shows the newest rows and leaves them for the next take', () => {
  const rows = new NewestRows<number>(4);
  for (let i = 1; i <= 6; i++) rows.push(i);
  assert.deepEqual(rows.peek(), [3, 4, 5, 6]);
  assert.deepEqual(rows.take(), [3, 4, 5, 6]);
  assert.deepEqual(rows.peek(), []);
});
