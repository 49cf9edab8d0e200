/**
 * Interface naming as EVE-NG does it: a template's `eth_format` (and optional
 * `eth_name` list) turns an interface index into the name the device uses.
 *
 * Grammar (EVE-NG's EthFormat2val):
 * - `Gi{0}`          one counter starting at the number in braces: Gi0, Gi1, …
 * - `Gi{1}/{0-8}`    slot counter starting at 1, then ports starting at 0 with 8 ports
 *                    per slot: Gi1/0 … Gi1/7, Gi2/0, …
 * - no braces        the default `e{0}`: e0, e1, …
 * - `eth_name`       non-empty entries name the first interfaces; the format
 *                    counts on from there (eth_name [Management1] + Ethernet{1}
 *                    gives Management1, Ethernet1, Ethernet2, …).
 *
 * These functions are pure and cheap; callers on hot paths may keep the
 * result of compileEthFormat().
 */

interface SlotPort {
  slotStart: number;
  separator: string;
  portsPerSlot: number;
}

/** A parsed eth_format plus eth_name, ready to name or look up interfaces. */
export interface EthFormat {
  /** Name of the interface at a zero-based index (ignores any count limit). */
  nameAt(index: number): string;
  /** The first `count` interface names. */
  names(count: number): string[];
  /** Zero-based index of `name` among the first `count` interfaces, or undefined. */
  indexOf(name: string, count: number): number | undefined;
}

/** The counting part of an eth_format: text around one counter, or a slot and a port counter. */
interface Pattern {
  prefix: string;
  suffix: string;
  /** Where the (port) counter starts. */
  first: number;
  slots?: SlotPort;
}

const TWO_GROUPS = /^(.*?)\{([^{}]*)\}([^{}]*)\{([^{}]*)\}(.*)$/s;
const ONE_GROUP = /^(.*?)\{([^{}]*)\}(.*)$/s;

export function compileEthFormat(format: string | undefined, ethName: readonly string[] = []): EthFormat {
  const pattern = parsePattern(format ?? '');
  // eth_name entries that are set take their index; the format counts only the others.
  const named = new Map<number, string>();
  ethName.forEach((n, i) => {
    if (n) named.set(i, n);
  });
  const namedCountBefore = (index: number): number => {
    let pass = 0;
    for (const i of named.keys()) if (i < index) pass++;
    return pass;
  };
  const nameAt = (index: number): string => named.get(index) ?? formatOrdinal(pattern, index - namedCountBefore(index));

  return {
    nameAt,
    names(count) {
      const out: string[] = [];
      let pass = 0;
      for (let i = 0; i < count; i++) {
        const n = named.get(i);
        if (n) pass++;
        out.push(n ?? formatOrdinal(pattern, i - pass));
      }
      return out;
    },
    indexOf(name, count) {
      for (const [i, n] of named) if (n === name && i < count) return i;
      const ordinal = ordinalOf(pattern, name);
      if (ordinal === undefined) return undefined;
      // Map the format ordinal back to an index by skipping over the named slots.
      let index = ordinal;
      for (const i of [...named.keys()].sort((a, b) => a - b)) if (i <= index) index++;
      return index < count && nameAt(index) === name ? index : undefined;
    },
  };
}

/** Reads the braces of an eth_format; no braces at all is EVE-NG's default `e{0}`. */
function parsePattern(format: string): Pattern {
  const two = TWO_GROUPS.exec(format);
  if (two) {
    const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(two[4]);
    const portsPerSlot = range ? Number(range[2]) : 0;
    if (range && portsPerSlot > 0)
      return {
        prefix: two[1],
        suffix: two[5],
        first: Number(range[1]),
        slots: { slotStart: firstNumber(two[2]), separator: two[3], portsPerSlot },
      };
    // No usable "first-perSlot" range: count on the slot number alone, as if `{N}` had been written.
    return { prefix: two[1], suffix: '', first: firstNumber(two[2]) };
  }
  const one = ONE_GROUP.exec(format);
  if (one) return { prefix: one[1], suffix: one[3], first: firstNumber(one[2]) };
  return { prefix: 'e', suffix: '', first: 0 };
}

/** The name of the format's `ordinal`-th interface (eth_name entries not counted). */
function formatOrdinal({ prefix, suffix, first, slots }: Pattern, ordinal: number): string {
  if (!slots) return `${prefix}${ordinal + first}${suffix}`;
  const slot = Math.floor(ordinal / slots.portsPerSlot) + slots.slotStart;
  const port = (ordinal % slots.portsPerSlot) + first;
  return `${prefix}${slot}${slots.separator}${port}${suffix}`;
}

/** The format ordinal a name encodes, parsed directly so look-ups stay O(1) in the count. */
function ordinalOf({ prefix, suffix, first, slots }: Pattern, name: string): number | undefined {
  if (!name.startsWith(prefix) || !name.endsWith(suffix) || name.length < prefix.length + suffix.length)
    return undefined;
  const middle = name.slice(prefix.length, name.length - suffix.length);
  if (!slots) {
    const n = decimal(middle);
    return n === undefined || n < first ? undefined : n - first;
  }
  const at = slots.separator ? middle.indexOf(slots.separator) : -1;
  if (!slots.separator || at < 0) return undefined;
  const slot = decimal(middle.slice(0, at));
  const port = decimal(middle.slice(at + slots.separator.length));
  if (slot === undefined || port === undefined) return undefined;
  if (slot < slots.slotStart || port < first || port - first >= slots.portsPerSlot) return undefined;
  return (slot - slots.slotStart) * slots.portsPerSlot + (port - first);
}

/** The first `count` interface names of a template's eth_format / eth_name. */
export function interfaceNames(format: string, count: number, ethName?: string[]): string[] {
  return compileEthFormat(format, ethName).names(count);
}

/** Zero-based index of interface `name` among the first `count`, or undefined when the format cannot produce it. */
export function interfaceIndex(format: string, name: string, count: number, ethName?: string[]): number | undefined {
  return compileEthFormat(format, ethName).indexOf(name, count);
}

function firstNumber(text: string): number {
  const m = /\d+/.exec(text);
  return m ? Number(m[0]) : 0;
}

/** A canonical non-negative decimal ("0", "12"; not "012", "+1" or ""). */
function decimal(text: string): number | undefined {
  if (!/^(0|[1-9]\d*)$/.test(text)) return undefined;
  return Number(text);
}
