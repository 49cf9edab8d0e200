/**
 * Packet summaries on the agent's machine (decisions §14): Wireshark's tshark
 * reads the bytes of a capture's pcapng stream as they are sent and prints one
 * line of JSON a packet (`-T ek`), which becomes a PacketSummary.
 *
 * tshark is a large dissector fed packets that lab users can craft, so it runs
 * with the least it needs: as `nobody`, no capabilities, no new privileges, a
 * HOME that does not exist (no profile, no plugins of root's), no name
 * resolution (`-n`), and in a cgroup of its own with the agent's prefix
 * (lab-<agent>-sum<id>, 256 MiB) under `setpriv --pdeathsig KILL`, as dumpcap
 * is (capture.ts): it dies with the agent, and a start after kill -9 removes
 * any left. `tshark -r -` refuses a socket (Node's pipes to a child are
 * sockets), so `cat` turns the input into a pipe; each of the shell, cat and
 * tshark dies with its parent.
 *
 * It never slows the capture: bytes wait for tshark in its stdin's queue, and
 * once more than MAX_QUEUED_BYTES wait (tshark is too slow, or the reader of
 * the summaries does not take them, so tshark is paused), it is stopped and the
 * summaries end with `lagging`.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { PacketSummary, SummariesEndLine } from '../../../common/api/contract';
import type { PacketSummarizer } from '../backend';
import type { NodeLimits } from './cgroup';
import { CgroupProcesses, pulledOutput } from './cgroup-processes';
import { runProcess } from './command';
import { PACKET_FIELDS } from '../../../common/packet-fields';

const TSHARK = 'tshark';
/** pcapng bytes queued for tshark at most before the summaries give up (decisions §14: 4 MiB). */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** Summaries held for a reader that is slow or not there yet, before tshark's output is no longer read. */
const HELD_SUMMARIES = 256;
/** tshark keeps state per conversation: enough for long captures, bounded all the same. */
const TSHARK_LIMITS: NodeLimits = { pids: 16, memoryMiB: 256, cpus: 1 };
/** After its input ends, tshark gets this long to print the rest before it is killed. */
const FINISH_GRACE_MS = 10_000;
const STDERR_CHARS = 2000;

/** tshark's version when it is installed. */
export async function probeTshark(): Promise<string | undefined> {
  const result = await runProcess(TSHARK, ['--version'], { timeoutMs: 10_000 });
  return result.code === 0 ? (/TShark \(Wireshark\) (\S+)/.exec(result.stdout)?.[1] ?? 'unknown') : undefined;
}

/** The running summarizers of one Linux emulator. */
export class LinuxSummarizers extends CgroupProcesses<TsharkSummarizer> {
  start(): Promise<PacketSummarizer> {
    const tsharkArgs = ['-n', '-l', '-r', '-', '-T', 'ek', ...Object.values(PACKET_FIELDS).flatMap((f) => ['-e', f])];
    return this.spawnInCgroup({
      kind: 'sum',
      limits: TSHARK_LIMITS,
      argv: [
        'setpriv',
        '--reuid=nobody',
        '--regid=nogroup',
        '--clear-groups',
        '--nnp',
        '--inh-caps=-all',
        '--bounding-set=-all',
        '--pdeathsig',
        'KILL',
        '--',
        'sh',
        '-c',
        'setpriv --pdeathsig KILL -- cat | exec setpriv --pdeathsig KILL -- "$0" "$@"',
        TSHARK,
        ...tsharkArgs,
      ],
      options: {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/nonexistent', LC_ALL: 'C.UTF-8' },
      },
      handle: (child, exited) => new TsharkSummarizer(child, exited),
    });
  }

  /** The agent stops: every tshark is stopped; resolves when they are gone. */
  closeAll(): Promise<void> {
    return this.stopAll((summarizer) => summarizer.stop());
  }
}

class TsharkSummarizer implements PacketSummarizer {
  readonly summaries: Readable;
  readonly exited: Promise<void>;
  outcome: SummariesEndLine | undefined;
  private readonly stdin: Writable;
  private reason: { end: 'lagging' | 'failed' | 'stopped'; message: string } | undefined;
  private packets = 0;
  private stderr = '';
  private killTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly child: ChildProcess,
    onExit: () => void,
  ) {
    const stdout = child.stdout as Readable;
    this.stdin = child.stdin as Writable;
    // tshark that has exited, or was stopped, leaves bytes unwritten: not an error of the capture.
    this.stdin.on('error', () => undefined);
    this.summaries = pulledOutput(stdout, HELD_SUMMARIES, () => this.stop());
    const lines = createInterface({ input: stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      const summary = this.reason ? undefined : summaryOf(line);
      if (!summary || this.summaries.destroyed) return;
      this.packets++;
      if (!this.summaries.push(summary)) stdout.pause();
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      if (this.stderr.length < STDERR_CHARS) this.stderr += text;
    });
    this.exited = new Promise<void>((resolve) => {
      child.on('error', (e) => {
        this.stderr += e.message;
      });
      child.on('close', (code, signal) => {
        clearTimeout(this.killTimer);
        this.outcome = this.outcomeOf(code, signal);
        if (!this.summaries.destroyed) this.summaries.push(null);
        onExit();
        resolve();
      });
    });
  }

  write(bytes: Buffer): void {
    if (this.reason || this.stdin.writableEnded) return;
    if (this.stdin.writableLength + bytes.length > MAX_QUEUED_BYTES) {
      this.halt(
        'lagging',
        `The summaries fell over ${MAX_QUEUED_BYTES / 1024 / 1024} MiB of packets behind the capture (tshark or the reader of the summaries too slow); the capture goes on and its file holds every packet.`,
      );
      return;
    }
    this.stdin.write(bytes);
  }

  end(): void {
    if (this.reason || this.stdin.writableEnded) return;
    this.stdin.end();
    this.killTimer = setTimeout(
      () =>
        this.halt(
          'lagging',
          `tshark and the reader of the summaries did not finish within ${FINISH_GRACE_MS / 1000} s of the capture's end.`,
        ),
      FINISH_GRACE_MS,
    );
    this.killTimer.unref();
  }

  stop(): void {
    this.halt('stopped', 'The summaries were stopped.');
  }

  /** Stops tshark now (the shell's death takes cat and tshark with it); lines already held are still read. */
  private halt(end: 'lagging' | 'failed' | 'stopped', message: string): void {
    if (this.reason || this.outcome) return;
    this.reason = { end, message };
    (this.child.stdout as Readable).resume();
    this.child.kill('SIGKILL');
  }

  private outcomeOf(code: number | null, signal: NodeJS.Signals | null): SummariesEndLine {
    const packets = this.packets;
    if (this.reason)
      return { end: this.reason.end === 'lagging' ? 'lagging' : 'failed', packets, message: this.reason.message };
    if (code === 0) return { end: 'complete', packets };
    const said = this.stderr
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !/^Running as user|This could be dangerous/.test(line))
      .join(' ');
    const why =
      signal === 'SIGKILL'
        ? `tshark was killed, most likely at its memory limit (${TSHARK_LIMITS.memoryMiB} MiB)`
        : `tshark failed (${signal ?? `exit ${code}`})${said ? `: ${said}` : ''}`;
    return { end: 'failed', packets, message: `${why}. The capture goes on and its file holds every packet.` };
  }
}

/** One line of `tshark -T ek -e …`: a packet's summary, or undefined for its index lines. */
function summaryOf(line: string): PacketSummary | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  const layers = (parsed as { layers?: Record<string, unknown> } | null)?.layers;
  if (!layers || typeof layers !== 'object') return undefined;
  const field = (name: string): string => {
    const value = layers[name.replace(/\./g, '_')];
    return Array.isArray(value) ? value.map(String).join(',') : '';
  };
  const no = Number(field(PACKET_FIELDS.no));
  if (!Number.isSafeInteger(no) || no < 1) return undefined;
  return {
    no,
    time: field(PACKET_FIELDS.time),
    interface: field(PACKET_FIELDS.interface),
    source: field(PACKET_FIELDS.source),
    destination: field(PACKET_FIELDS.destination),
    protocol: field(PACKET_FIELDS.protocol),
    info: field(PACKET_FIELDS.info),
  };
}
