/**
 * The rows of the live packet list: one per packet as tshark decodes it (the
 * agent's, sent beside the bytes, or the local one), and the window of the
 * newest rows the list shows. The list keeps at most ROW_CAP rows however fast
 * packets come; every packet is in the file. Pure.
 */
import type { PacketSummary } from '../../common/api/contract';
import { PACKET_FIELDS } from '../../common/packet-fields';

/** Rows the live list holds; older ones are only in the file. */
export const ROW_CAP = 2000;

/**
 * A row is a packet summary of the API's (decisions §14) whichever tshark decoded it, the agent's
 * or the local one: the webview shows one shape.
 */
export type PacketRow = PacketSummary;

/** The tshark fields of a row, in the order parsePacketRow reads them (`-T fields -e …`): the agent's too. */
export const TSHARK_FIELDS = Object.values(PACKET_FIELDS);

/** One line of `tshark -T fields -E separator=/t`; undefined for a line that is not a packet. */
export function parsePacketRow(line: string): PacketRow | undefined {
  const parts = line.split('\t');
  if (parts.length < TSHARK_FIELDS.length) return undefined;
  const [no, time, iface, source, destination, protocol, ...info] = parts;
  const number = Number(no);
  if (!Number.isSafeInteger(number) || number < 1) return undefined;
  // The info column is last: a tab inside it stays in it.
  return { no: number, time, interface: iface, source, destination, protocol, info: info.join('\t') };
}

/** The row of one line of the agent's summaries stream (decisions §14); undefined for one that is not a packet. */
export function agentRow(line: unknown): PacketRow | undefined {
  const s = line as Partial<PacketSummary> | null;
  if (typeof s !== 'object' || s === null || !Number.isSafeInteger(s.no) || (s.no as number) < 1) return undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    no: s.no as number,
    time: text(s.time),
    interface: text(s.interface),
    source: text(s.source),
    destination: text(s.destination),
    protocol: text(s.protocol),
    info: text(s.info),
  };
}

/** The text filter (used without a local tshark): the row's columns hold `text`, in any case. */
export function rowMatches(row: PacketRow, text: string): boolean {
  const wanted = text.trim().toLowerCase();
  if (wanted === '') return true;
  return [String(row.no), row.interface, row.source, row.destination, row.protocol, row.info].some((cell) =>
    cell.toLowerCase().includes(wanted),
  );
}

/** The newest `cap` items pushed, and how many were pushed in all. */
export class NewestRows<T> {
  private items: T[] = [];
  private pushed = 0;

  constructor(private readonly cap = ROW_CAP) {}

  push(item: T): void {
    this.items.push(item);
    this.pushed++;
    // Trimmed in steps of a quarter, so that a row costs O(1) however long the capture runs.
    if (this.items.length >= this.cap + Math.ceil(this.cap / 4)) this.items = this.items.slice(-this.cap);
  }

  /** The newest rows, oldest first (at most `cap`), taken out: the window is empty after. */
  take(): T[] {
    const rows = this.items.length > this.cap ? this.items.slice(-this.cap) : this.items;
    this.items = [];
    return rows;
  }

  /** The newest items (at most `cap`), oldest first, left in place. */
  peek(): T[] {
    return this.items.length > this.cap ? this.items.slice(-this.cap) : [...this.items];
  }

  get total(): number {
    return this.pushed;
  }
}
