/**
 * The packet list's dissector: Wireshark's tshark, run on the machine of the
 * extension host, reading the capture's pcapng as it is written and printing
 * one line of fields per packet (packet-rows.ts reads them). A display filter
 * is tshark's own `-Y`; a filter it cannot compile ends it with its message.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { CaptureRecording } from './recording';
import { parsePacketRow, TSHARK_FIELDS, type PacketRow } from './packet-rows';

/** Characters of tshark's error output kept for the message. */
const STDERR_CHARS = 2000;

export interface DecoderEvents {
  row(row: PacketRow): void;
  /** tshark ended: `problem` is its error (a filter it cannot compile, …) when it failed. */
  ended(problem: string | undefined): void;
}

/**
 * `events.ended` for the first of a reading's ends (an error, the close, the last line); later ones
 * are dropped. After stop() the end is undefined: stopping is not a problem.
 */
export function firstEnd(events: DecoderEvents): (problem: string | undefined) => void {
  let reported = false;
  return (problem) => {
    if (reported) return;
    reported = true;
    events.ended(problem);
  };
}

/** Runs tshark over the whole capture (from its first byte, then live); stop() ends it. */
export function decodeCapture(
  tshark: string,
  recording: CaptureRecording,
  filter: string,
  events: DecoderEvents,
): { stop(): void } {
  const args = ['-n', '-l', '-r', '-', ...(filter.trim() ? ['-Y', filter.trim()] : [])];
  args.push('-T', 'fields', '-E', 'separator=/t', ...TSHARK_FIELDS.flatMap((field) => ['-e', field]));
  const child = spawnReadingStdin(tshark, args);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    if (stderr.length < STDERR_CHARS) stderr += text;
  });
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  lines.on('line', (line) => {
    const row = parsePacketRow(line);
    if (row) events.row(row);
  });
  const follower = recording.follow(child.stdin);
  let stopped = false;
  const report = firstEnd(events);
  child.on('error', (err) => report(`Cannot run tshark (${tshark}): ${err.message}`));
  child.on('close', (code) => {
    follower.stop();
    const text = stderr
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^Running as user/.test(line))
      .join(' ')
      .trim();
    report(stopped || code === 0 ? undefined : text || `tshark ended with code ${code}.`);
  });
  return {
    stop: () => {
      stopped = true;
      follower.stop();
      killGroup(child);
    },
  };
}

/**
 * tshark with the capture on its standard input. `tshark -r -` refuses a socket (Node's pipes
 * to a child are sockets on POSIX): there `cat` turns it into a pipe, and the two share a
 * process group so that stop() ends both. Windows gives children real pipes.
 */
function spawnReadingStdin(tshark: string, args: string[]): ChildProcessWithoutNullStreams {
  if (process.platform === 'win32') return spawn(tshark, args, { stdio: 'pipe' });
  return spawn('/bin/sh', ['-c', 'cat | "$0" "$@"', tshark, ...args], { stdio: 'pipe', detached: true });
}

function killGroup(child: ChildProcessWithoutNullStreams): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill();
    else process.kill(-child.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}
