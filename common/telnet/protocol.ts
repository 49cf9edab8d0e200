/**
 * The telnet protocol as the emulator's consoles speak it (decisions §3), for
 * terminals and tests alike. Pure: bytes in, text and reply bytes out; binding
 * to a socket is in attach.ts.
 *
 * Negotiation: we perform SGA and BINARY when asked (DO → WILL), and let the
 * server perform ECHO, SGA and BINARY (WILL → DO). Every other option is
 * refused (WONT / DONT), once per option. We answer only changes of state and
 * never start a negotiation, so two peers cannot loop. We never send NAWS or any
 * subnegotiation, and incoming subnegotiations (SB … SE) are dropped.
 *
 * Input: "\r\n", "\n" and "\r" typed or pasted by the user each become one CR,
 * the key a console's Enter sends (including a "\r" ending one send and a "\n"
 * starting the next). Raw bytes are sent as they are, with 0xFF doubled (IAC IAC).
 */
import { isAscii } from 'node:buffer';

export const IAC = 0xff;
export const DONT = 0xfe;
export const DO = 0xfd;
export const WONT = 0xfc;
export const WILL = 0xfb;
export const SB = 0xfa;
export const SE = 0xf0;

export const TelnetOption = { BINARY: 0, ECHO: 1, SGA: 3, NAWS: 31 } as const;

/** Options we agree to perform ourselves. */
const LOCAL_OPTIONS = new Set<number>([TelnetOption.SGA, TelnetOption.BINARY]);
/** Options we agree to let the server perform. */
const REMOTE_OPTIONS = new Set<number>([TelnetOption.ECHO, TelnetOption.SGA, TelnetOption.BINARY]);

const enum Parse {
  Data,
  Command,
  Option,
  Subnegotiation,
  SubnegotiationIac,
}

const REFUSED_LOCAL = 1;
const REFUSED_REMOTE = 2;
const LITERAL_IAC = Buffer.from([IAC]);
const LINE_BREAK = /\r\n|\r|\n/g;

export class TelnetProtocol {
  private state = Parse.Data;
  private verb = 0;
  /** TextDecoder in streaming mode: about twice as fast as StringDecoder on mixed console output. */
  private readonly decoder = new TextDecoder('utf-8');
  /** Whether the decoder holds the first bytes of a character split across chunks. */
  private decoderPending = false;
  /** 1 where we perform the option, per option number. */
  private readonly local = new Uint8Array(256);
  /** 1 where the server performs the option. */
  private readonly remote = new Uint8Array(256);
  /** REFUSED_* bits already sent, so each refusal goes out once. */
  private readonly refused = new Uint8Array(256);
  private replies: number[] = [];
  private inputEndedWithCr = false;

  /** `reply` receives negotiation answers, batched per received chunk; write them to the server. */
  constructor(private readonly reply: (bytes: Buffer) => void) {}

  /** Whether the server agreed to perform `option` (e.g. ECHO: it echoes what we type). */
  serverPerforms(option: number): boolean {
    return this.remote[option] === 1;
  }

  /** Bytes from the server → the text they carry, with telnet commands removed. */
  receive(chunk: Uint8Array): string {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // The common case: plain output, no command in this chunk.
    if (this.state === Parse.Data && bytes.indexOf(IAC) === -1) return this.decode(bytes);
    let text = '';
    let i = 0;
    const end = bytes.length;
    while (i < end) {
      switch (this.state) {
        case Parse.Data: {
          const at = bytes.indexOf(IAC, i);
          const stop = at === -1 ? end : at;
          if (stop > i) text += this.decode(bytes.subarray(i, stop));
          i = stop + 1;
          if (at !== -1) this.state = Parse.Command;
          break;
        }
        case Parse.Command: {
          const byte = bytes[i++];
          if (byte === IAC) {
            text += this.decode(LITERAL_IAC);
            this.state = Parse.Data;
          } else if (byte >= WILL && byte <= DONT) {
            this.verb = byte;
            this.state = Parse.Option;
          } else {
            // SB starts a subnegotiation; NOP, GA, DM, AYT and the rest carry nothing for a terminal.
            this.state = byte === SB ? Parse.Subnegotiation : Parse.Data;
          }
          break;
        }
        case Parse.Option:
          this.negotiate(this.verb, bytes[i++]);
          this.state = Parse.Data;
          break;
        case Parse.Subnegotiation: {
          const at = bytes.indexOf(IAC, i);
          i = at === -1 ? end : at + 1;
          if (at !== -1) this.state = Parse.SubnegotiationIac;
          break;
        }
        case Parse.SubnegotiationIac:
          // IAC SE ends it; IAC IAC is an escaped data byte inside it.
          this.state = bytes[i++] === SE ? Parse.Data : Parse.Subnegotiation;
          break;
      }
    }
    if (this.replies.length > 0) {
      const out = Buffer.from(this.replies);
      this.replies = [];
      this.reply(out);
    }
    return text;
  }

  /** At the end of the stream: the rest of an incomplete UTF-8 character, if any (as U+FFFD). */
  end(): string {
    this.decoderPending = false;
    return this.decoder.decode();
  }

  /**
   * Console output is mostly ASCII, which latin1 slicing turns into text several
   * times faster than the UTF-8 decoder; the decoder handles everything else,
   * and any chunk after one that ended mid-character.
   */
  private decode(bytes: Buffer): string {
    if (!this.decoderPending && isAscii(bytes)) return bytes.toString('latin1');
    this.decoderPending = endsMidCharacter(bytes);
    return this.decoder.decode(bytes, { stream: true });
  }

  /** What the user typed (string: line breaks → CR, UTF-8) or raw bytes (IAC doubled) → bytes to send. */
  encode(input: string | Uint8Array): Buffer {
    if (typeof input === 'string') {
      const text = this.inputEndedWithCr && input.startsWith('\n') ? input.slice(1) : input;
      if (input.length > 0) this.inputEndedWithCr = input.endsWith('\r');
      // UTF-8 never produces the byte 0xFF, so text needs no IAC escaping.
      return Buffer.from(text.replace(LINE_BREAK, '\r'), 'utf8');
    }
    this.inputEndedWithCr = false;
    const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    let at = bytes.indexOf(IAC);
    if (at === -1) return bytes;
    let count = 0;
    for (; at !== -1; at = bytes.indexOf(IAC, at + 1)) count++;
    const out = Buffer.allocUnsafe(bytes.length + count);
    let written = 0;
    let from = 0;
    for (at = bytes.indexOf(IAC); at !== -1; at = bytes.indexOf(IAC, at + 1)) {
      written += bytes.copy(out, written, from, at + 1);
      out[written++] = IAC;
      from = at + 1;
    }
    bytes.copy(out, written, from);
    return out;
  }

  private negotiate(verb: number, option: number): void {
    switch (verb) {
      case DO:
        this.asked(option, LOCAL_OPTIONS, this.local, WILL, WONT, REFUSED_LOCAL);
        break;
      case DONT:
        if (this.local[option] === 1) this.answer(WONT, option, this.local, 0);
        break;
      case WILL:
        this.asked(option, REMOTE_OPTIONS, this.remote, DO, DONT, REFUSED_REMOTE);
        break;
      case WONT:
        if (this.remote[option] === 1) this.answer(DONT, option, this.remote, 0);
        break;
    }
  }

  /**
   * The peer asks us to enable an option (DO) or offers to enable one of its own (WILL): agreed once
   * when it is one we use (`agree`), refused once otherwise (`refuse`), so neither side loops.
   */
  private asked(
    option: number,
    used: ReadonlySet<number>,
    table: Uint8Array,
    agree: number,
    refuse: number,
    refusedBit: number,
  ): void {
    if (used.has(option)) {
      if (table[option] === 0) this.answer(agree, option, table, 1);
    } else if ((this.refused[option] & refusedBit) === 0) {
      this.refused[option] |= refusedBit;
      this.replies.push(IAC, refuse, option);
    }
  }

  private answer(verb: number, option: number, table: Uint8Array, enabled: 0 | 1): void {
    table[option] = enabled;
    this.replies.push(IAC, verb, option);
  }
}

/** Whether the last bytes of `bytes` start a UTF-8 character that continues in the next chunk. */
function endsMidCharacter(bytes: Buffer): boolean {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if (byte < 0x80) return false;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return back < length;
    }
  }
  return false;
}
