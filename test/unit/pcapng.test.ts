/**
 * The pcapng blocks of a capture (agent/emulator/pcapng.ts): blocks cut from
 * any chunking, and the merge of several interfaces into one timeline
 * (decisions §14). That tshark reads what the agent writes is tested on real
 * captures in test/linux/linux-capture.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BLOCK, BlockReader, BlockWriter, PacketMerger } from '../../agent/emulator/pcapng';

/** An Enhanced Packet Block (little-endian) of interface `id` at `ns` nanoseconds with a 60-byte frame. */
function epb(id: number, ns: bigint): Buffer {
  const frame = Buffer.alloc(60, id + 1);
  const b = Buffer.alloc(32 + frame.length);
  b.writeUInt32LE(BLOCK.enhancedPacket, 0);
  b.writeUInt32LE(b.length, 4);
  b.writeUInt32LE(id, 8);
  b.writeUInt32LE(Number(ns >> 32n), 12);
  b.writeUInt32LE(Number(ns & 0xffffffffn), 16);
  b.writeUInt32LE(frame.length, 20);
  b.writeUInt32LE(frame.length, 24);
  frame.copy(b, 28);
  b.writeUInt32LE(b.length, b.length - 4);
  return b;
}

function timeOf(block: Buffer): bigint {
  return (BigInt(block.readUInt32LE(12)) << 32n) | BigInt(block.readUInt32LE(16));
}

const T0 = 1_795_000_000_000_000_000n;
const MS = 1_000_000n;

test('blocks are cut whole from any chunking of the stream', () => {
  const writer = new BlockWriter(true);
  const stream = Buffer.concat([writer.sectionHeader('x'), epb(0, T0), epb(0, T0 + MS)]);
  const reader = new BlockReader();
  const types: number[] = [];
  for (let at = 0; at < stream.length; at += 7)
    types.push(...reader.push(stream.subarray(at, at + 7)).map((b) => b.type));
  assert.deepEqual(types, [BLOCK.sectionHeader, BLOCK.enhancedPacket, BLOCK.enhancedPacket]);
  assert.throws(() => new BlockReader().push(Buffer.from([6, 0, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0])), /block of 13 bytes/);
});

test('packets of two interfaces handed over in batches come out in time order', () => {
  let now = 0;
  const merger = new PacketMerger({ interfaces: 2, windowMs: 1000, maxHeldBytes: 1 << 20, clock: () => now });
  const reader = new BlockReader();
  const out: Buffer[] = [];
  // Interface 0's batch (0, 100, 200 ms), then interface 1's (50, 150, 250 ms), as dumpcap hands them over.
  for (const ms of [0n, 100n, 200n]) out.push(...merger.add(reader, epb(0, T0 + ms * MS), 9));
  for (const ms of [50n, 150n, 250n]) out.push(...merger.add(reader, epb(1, T0 + ms * MS), 9));
  assert.equal(out.length, 0, 'held within the window');
  // 1.2 s later a packet comes: the six are due, in time order.
  out.push(...merger.add(reader, epb(0, T0 + 1300n * MS), 9));
  assert.deepEqual(
    out.map((b) => Number((timeOf(b) - T0) / MS)),
    [0, 50, 100, 150, 200, 250],
  );
  // A quiet link: the clock lets the held packet go.
  now += 1000;
  assert.deepEqual(
    merger.due(false).map((b) => Number((timeOf(b) - T0) / MS)),
    [1300],
  );
  // A packet older than one already passed on is left out and counted.
  assert.deepEqual(merger.add(reader, epb(1, T0 + 900n * MS), 9), []);
  assert.deepEqual(merger.due(true), []);
  assert.deepEqual(merger.late, [0, 1]);
});

test('the merge holds a bounded number of bytes: past it the oldest go at once', () => {
  const merger = new PacketMerger({ interfaces: 2, windowMs: 1000, maxHeldBytes: 10 * 92, clock: () => 0 });
  const reader = new BlockReader();
  let out = 0;
  for (let i = 0n; i < 100n; i++) out += merger.add(reader, epb(Number(i % 2n), T0 + i * 1000n), 9).length;
  assert.ok(merger.heldBytes <= 10 * 92, `${merger.heldBytes} bytes held`);
  assert.equal(out + merger.due(true).length, 100);
});

test('microsecond timestamps are written as nanoseconds, matching the interface headers', () => {
  const merger = new PacketMerger({ interfaces: 1, windowMs: 0, maxHeldBytes: 1 << 20 });
  const [block] = merger.add(new BlockReader(), epb(0, 1_795_000_000_000_000n), 6);
  assert.equal(timeOf(block), 1_795_000_000_000_000_000n);
});
