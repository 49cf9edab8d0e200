/**
 * The pcapng container (draft-ietf-opsawg-pcapng), as far as a capture needs
 * it: cutting a capture tool's output into blocks, writing the section and
 * interface headers the agent names itself, and merging the packets of
 * several interfaces into one timeline (decisions §14). Packets themselves
 * are never decoded: blocks are passed on byte for byte.
 *
 * Written here rather than taken from a library: the container is a few
 * fixed-layout blocks, and no pcapng package is in the project's install.
 */

export const BLOCK = {
  sectionHeader: 0x0a0d0d0a,
  interfaceDescription: 1,
  interfaceStatistics: 5,
  enhancedPacket: 6,
} as const;

const BYTE_ORDER_MAGIC = 0x1a2b3c4d;
const LINKTYPE_ETHERNET = 1;
const OPTION = { endOfOptions: 0, comment: 1, ifName: 2, ifDescription: 3, ifTsresol: 9, ifFilter: 11, shbUserAppl: 4 };
/** Nanosecond timestamps: if_tsresol 9 (10^-9 s). */
const TSRESOL_NANOSECONDS = 9;
/** A block longer than this is not pcapng from a capture tool (the largest packet is 256 KiB). */
const MAX_BLOCK_BYTES = 1 << 20;

export interface Block {
  type: number;
  /** The whole block: type, length, body, length. */
  bytes: Buffer;
}

/** Cuts a byte stream into whole pcapng blocks, in the byte order its section header says. */
export class BlockReader {
  private pending: Buffer = Buffer.alloc(0);
  littleEndian = true;

  /** The blocks completed by `chunk`; throws on bytes that are not pcapng. */
  push(chunk: Buffer): Block[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const blocks: Block[] = [];
    let at = 0;
    while (this.pending.length - at >= 12) {
      const type = this.pending.readUInt32LE(at);
      if (type === BLOCK.sectionHeader) {
        const magic = this.pending.readUInt32LE(at + 8);
        if (magic !== BYTE_ORDER_MAGIC && this.pending.readUInt32BE(at + 8) !== BYTE_ORDER_MAGIC)
          throw new Error('the capture tool wrote a section header with no byte-order magic');
        this.littleEndian = magic === BYTE_ORDER_MAGIC;
      }
      const length = this.u32(this.pending, at + 4);
      if (length < 12 || length % 4 !== 0 || length > MAX_BLOCK_BYTES)
        throw new Error(`the capture tool wrote a pcapng block of ${length} bytes`);
      if (this.pending.length - at < length) break;
      blocks.push({ type: this.u32(this.pending, at), bytes: this.pending.subarray(at, at + length) });
      at += length;
    }
    this.pending = this.pending.subarray(at);
    return blocks;
  }

  u32(buffer: Buffer, at: number): number {
    return this.littleEndian ? buffer.readUInt32LE(at) : buffer.readUInt32BE(at);
  }

  /** An interface description's timestamp resolution as a power of ten (6, microseconds, when absent). */
  tsresol(idb: Buffer): number {
    for (const { code, value } of this.options(idb, 16))
      if (code === OPTION.ifTsresol && value.length >= 1) {
        if (value[0] & 0x80) throw new Error('the capture tool wrote power-of-two timestamps');
        return value[0];
      }
    return 6;
  }

  private *options(block: Buffer, from: number): Generator<{ code: number; value: Buffer }> {
    const end = block.length - 4;
    for (let at = from; at + 4 <= end;) {
      const code = this.littleEndian ? block.readUInt16LE(at) : block.readUInt16BE(at);
      const length = this.littleEndian ? block.readUInt16LE(at + 2) : block.readUInt16BE(at + 2);
      if (code === OPTION.endOfOptions) return;
      yield { code, value: block.subarray(at + 4, Math.min(end, at + 4 + length)) };
      at += 4 + Math.ceil(length / 4) * 4;
    }
  }
}

/** Writes blocks in the byte order of the section they go into. */
export class BlockWriter {
  constructor(private readonly littleEndian: boolean) {}

  private u16(value: number): Buffer {
    const b = Buffer.alloc(2);
    if (this.littleEndian) b.writeUInt16LE(value);
    else b.writeUInt16BE(value);
    return b;
  }

  private u32(value: number): Buffer {
    const b = Buffer.alloc(4);
    if (this.littleEndian) b.writeUInt32LE(value);
    else b.writeUInt32BE(value);
    return b;
  }

  private option(code: number, value: Buffer): Buffer {
    const padding = Buffer.alloc((4 - (value.length % 4)) % 4);
    return Buffer.concat([this.u16(code), this.u16(value.length), value, padding]);
  }

  private block(type: number, body: Buffer): Buffer {
    const length = this.u32(body.length + 12);
    return Buffer.concat([this.u32(type), length, body, length]);
  }

  private options(list: [number, Buffer][]): Buffer {
    return Buffer.concat([...list.map(([code, value]) => this.option(code, value)), Buffer.alloc(4)]);
  }

  sectionHeader(application: string): Buffer {
    const section = Buffer.concat([this.u32(BYTE_ORDER_MAGIC), this.u16(1), this.u16(0), Buffer.alloc(8, 0xff)]);
    return this.block(
      BLOCK.sectionHeader,
      Buffer.concat([section, this.options([[OPTION.shbUserAppl, utf8(application)]])]),
    );
  }

  /** An Ethernet interface with nanosecond timestamps. */
  interfaceDescription(spec: { name: string; description: string; filter: string; snaplen: number }): Buffer {
    const head = Buffer.concat([this.u16(LINKTYPE_ETHERNET), this.u16(0), this.u32(spec.snaplen)]);
    const list: [number, Buffer][] = [
      [OPTION.ifName, utf8(spec.name)],
      [OPTION.ifDescription, utf8(spec.description)],
      [OPTION.ifTsresol, Buffer.from([TSRESOL_NANOSECONDS])],
    ];
    // if_filter: a first byte of 0 says the filter is a libpcap filter string.
    if (spec.filter) list.push([OPTION.ifFilter, Buffer.concat([Buffer.from([0]), utf8(spec.filter)])]);
    return this.block(BLOCK.interfaceDescription, Buffer.concat([head, this.options(list)]));
  }

  /** An interface statistics block with a comment added (the block's own options are kept). */
  withComment(isb: Buffer, comment: string): Buffer {
    const body = isb.subarray(8, isb.length - 4);
    const fixed = body.subarray(0, 12);
    // The options end with opt_endofopt (4 zero bytes) when there are any.
    const options = body.length > 12 ? body.subarray(12, body.length - 4) : Buffer.alloc(0);
    return this.block(
      BLOCK.interfaceStatistics,
      Buffer.concat([fixed, options, this.option(OPTION.comment, utf8(comment)), Buffer.alloc(4)]),
    );
  }
}

function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/** A packet held for the merge; its timestamp is nanoseconds as the two 32-bit halves pcapng writes. */
interface Held {
  interfaceId: number;
  high: number;
  low: number;
  bytes: Buffer;
  arrived: number;
}

function before(a: { high: number; low: number }, b: { high: number; low: number }): boolean {
  return a.high < b.high || (a.high === b.high && a.low < b.low);
}

/** How many nanoseconds `a` is after `b` (exact as a double for any gap under 104 days). */
function nanosAfter(a: { high: number; low: number }, b: { high: number; low: number }): number {
  return (a.high - b.high) * 0x1_0000_0000 + (a.low - b.low);
}

/** A 64-bit timestamp as the (high, low) halves pcapng writes. */
function halves(totalNs: bigint): { high: number; low: number } {
  return { high: Number(totalNs >> 32n), low: Number(totalNs & 0xffffffffn) };
}

export interface MergeOptions {
  interfaces: number;
  /** How long a packet is held for packets of other interfaces that are older (0: pass on as they come). */
  windowMs: number;
  /** Packet bytes held at most; past it the oldest are passed on at once. */
  maxHeldBytes: number;
  clock?: () => number;
}

/**
 * Puts the packets of several interfaces into one timeline. Each interface's
 * packets come in time order, but a capture tool hands them over in batches
 * per interface; a packet is held until the newest packet seen, or the clock,
 * is `windowMs` past it. A packet that arrives after a newer one was passed
 * on is left out (and counted), so timestamps never decrease.
 */
export class PacketMerger {
  private readonly queues: Held[][];
  private held = 0;
  private newest = { high: 0, low: 0 };
  private last = { high: 0, low: 0 };
  readonly late: number[];
  private readonly clock: () => number;

  constructor(private readonly options: MergeOptions) {
    this.queues = Array.from({ length: options.interfaces }, () => []);
    this.late = new Array<number>(options.interfaces).fill(0);
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Takes an Enhanced Packet Block (as the reader cut it, with its interface's
   * timestamp resolution) and returns the blocks now due, in time order, each
   * with its timestamp in nanoseconds.
   */
  add(reader: BlockReader, epb: Buffer, tsresol: number): Buffer[] {
    const interfaceId = reader.u32(epb, 8);
    if (interfaceId >= this.queues.length) return [];
    let high = reader.u32(epb, 12);
    let low = reader.u32(epb, 16);
    // A held packet gets bytes of its own: a view would keep the whole chunk it came in alive.
    let bytes = this.options.windowMs > 0 ? Buffer.from(epb) : epb;
    if (tsresol !== TSRESOL_NANOSECONDS) {
      const scaled = ((BigInt(high) << 32n) | BigInt(low)) * 10n ** BigInt(TSRESOL_NANOSECONDS - tsresol);
      ({ high, low } = halves(scaled));
      if (bytes === epb) bytes = Buffer.from(epb);
      if (reader.littleEndian) {
        bytes.writeUInt32LE(high, 12);
        bytes.writeUInt32LE(low, 16);
      } else {
        bytes.writeUInt32BE(high, 12);
        bytes.writeUInt32BE(low, 16);
      }
    }
    const packet = { interfaceId, high, low, bytes, arrived: this.clock() };
    if (before(this.newest, packet)) this.newest = { high, low };
    this.queues[interfaceId].push(packet);
    this.held += bytes.length;
    return this.due(false);
  }

  /** The blocks whose time has come (or all of them, at the end). */
  due(all: boolean): Buffer[] {
    const out: Buffer[] = [];
    const windowNs = this.options.windowMs * 1_000_000;
    const now = this.clock();
    for (;;) {
      let pick = -1;
      for (let i = 0; i < this.queues.length; i++) {
        const head = this.queues[i][0];
        if (head && (pick < 0 || before(head, this.queues[pick][0]))) pick = i;
      }
      if (pick < 0) break;
      const head = this.queues[pick][0];
      const ripe =
        all ||
        this.options.windowMs === 0 ||
        this.held > this.options.maxHeldBytes ||
        nanosAfter(this.newest, head) >= windowNs ||
        now - head.arrived >= this.options.windowMs;
      if (!ripe) break;
      this.queues[pick].shift();
      this.held -= head.bytes.length;
      if (before(head, this.last)) {
        this.late[pick]++;
        continue;
      }
      this.last = { high: head.high, low: head.low };
      out.push(head.bytes);
    }
    return out;
  }

  get heldBytes(): number {
    return this.held;
  }
}
