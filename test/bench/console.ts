/**
 * The console stream, from the reference agent's simulated node:
 * - throughput of a long command output (`show running-config` of a node whose
 *   startup config is CONFIG_BYTES of text, some of it non-ASCII) as a console
 *   terminal receives it: through the telnet layer and UTF-8 decoding
 *   (attachTelnet) and the terminal's line-end handling (ConsoleOutput), the
 *   path of client/consoles/terminal.ts up to the write to VS Code; against
 *   counting the bytes of the raw console socket; a fresh console per round,
 *   the two taking turns;
 * - keystroke → echo latency through attachTelnet, against the raw socket,
 *   both attached to the same node at once, taking turns key by key;
 * - the same path without a socket, on the recorded stream (CPU only), for headroom.
 */
import type { Duplex } from 'node:stream';
import { openConsole, type AgentClient } from '../../common/api/client';
import type { ConsolePayload } from '../../common/api/contract';
import { ConsoleOutput } from '../../client/model/console-output';
import { attachTelnet, TelnetProtocol } from '../../common/telnet';
import { startAgentProcess } from './support/agent-process';
import { MiB, progress, report, runSection } from './support/report';
import { median, percentile, sleep } from './support/stats';

const CONFIG_BYTES = 8 * MiB;
const ROUNDS = 12;
/** Keys each side types, or fewer if they take longer than KEYSTROKE_BUDGET_MS in all. */
const KEYSTROKES = 500;
const KEYSTROKE_BUDGET_MS = 15_000;
const BASELINE = 'raw console socket';
const PROMPT = 'r1#';

/**
 * An IOS-like startup config of about `bytes` bytes. One description in ten
 * (a line in 50) carries non-ASCII text, as real ones may: then nearly every
 * chunk of the stream needs real UTF-8 decoding.
 */
function bigConfig(bytes: number): string {
  const lines: string[] = ['hostname r1', '!'];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const block = [
      `interface GigabitEthernet0/${i}`,
      i % 10 === 0
        ? ` description Liaison → Zürich n°${i} (café)`
        : ` description Link to core-${i >> 4} port ${i & 15}`,
      ` ip address 10.${(i >> 8) & 255}.${i & 255}.1 255.255.255.0`,
      ' no shutdown',
      '!',
    ];
    size += Buffer.byteLength(block.join('\n')) + 1;
    lines.push(...block);
  }
  lines.push('end');
  return lines.join('\n') + '\n';
}

function labText(): string {
  return [
    'name: bench-console',
    'nodes:',
    '  r1:',
    '    template: vios',
    '    image: vios-adventerprisek9-m.SPA.159-3.M6',
    '    config: configs/r1.cfg',
    '',
  ].join('\n');
}

interface Stream {
  socket: Duplex;
  closed: Promise<void>;
}

async function open(client: AgentClient, payload: ConsolePayload): Promise<Stream> {
  const { socket } = await openConsole(client, payload);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, closed };
}

/** Sends the command without its Enter, and waits for the device to echo it (and the greeting to pass). */
async function typeCommand(write: (text: string) => void, seen: () => string, command: string): Promise<void> {
  await waitFor(() => seen().includes('\x07'), 'the console greeting');
  write(command);
  await waitFor(() => seen().endsWith(command), 'the echo of the command');
}

function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const poll = () => {
      if (condition()) resolve();
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setImmediate(poll);
    };
    poll();
  });
}

/** One `show running-config` on the raw socket: bytes from the first output byte to the prompt that ends it. */
async function rawRound(
  client: AgentClient,
  payload: ConsolePayload,
  record?: Buffer[],
): Promise<{ bytes: number; ms: number }> {
  const { socket, closed } = await open(client, payload);
  let text = '';
  const preamble = (chunk: Buffer) => {
    text = (text + chunk.toString('latin1')).slice(-256);
  };
  socket.on('data', preamble);
  await typeCommand(
    (t) => socket.write(t),
    () => text,
    'show running-config',
  );
  socket.off('data', preamble);
  const result = await new Promise<{ bytes: number; ms: number }>((resolve) => {
    let start = 0;
    let bytes = 0;
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      if (bytes === 0) start = performance.now();
      bytes += chunk.length;
      record?.push(chunk);
      tail = (tail + chunk.toString('latin1', Math.max(0, chunk.length - 16))).slice(-16);
      if (tail.endsWith(`end\r\n${PROMPT}`)) resolve({ bytes, ms: performance.now() - start });
    });
    socket.write('\r');
  });
  socket.end();
  await closed;
  return result;
}

/**
 * The same as a console terminal receives it: through attachTelnet and
 * ConsoleOutput, timed until the prompt reaches what would be written to the terminal.
 */
async function telnetRound(client: AgentClient, payload: ConsolePayload): Promise<{ bytes: number; ms: number }> {
  const { socket, closed } = await open(client, payload);
  const output = new ConsoleOutput();
  let text = '';
  let toTerminal = (t: string) => {
    text = (text + t).slice(-256);
  };
  let bytes = 0;
  let start = 0;
  socket.on('data', (chunk: Buffer) => {
    if (bytes === 0 && start === -1) start = performance.now();
    if (start !== 0) bytes += chunk.length;
  });
  const connection = attachTelnet(socket, { onText: (t) => toTerminal(output.write(t)), onClose: () => undefined });
  await typeCommand(
    (t) => connection.send(t),
    () => text,
    'show running-config',
  );
  const result = await new Promise<{ bytes: number; ms: number }>((resolve) => {
    let tail = '';
    start = -1;
    toTerminal = (t: string) => {
      tail = (tail + t.slice(-16)).slice(-16);
      if (tail.endsWith(`end\r\n${PROMPT}`)) resolve({ bytes, ms: performance.now() - start });
    };
    connection.send('\r');
  });
  connection.close();
  await closed;
  return result;
}

async function keystrokes(client: AgentClient, payload: ConsolePayload): Promise<{ telnet: number[]; raw: number[] }> {
  const raw = await open(client, payload);
  const telnet = await open(client, payload);
  // What each side waits for: its own letter. Each side types its own letter, so the echo of the
  // other side's key (the node echoes to every console) is not taken for its own.
  const waiting: Record<'raw' | 'telnet', { key: string; done: () => void } | undefined> = {
    raw: undefined,
    telnet: undefined,
  };
  let greeted = { raw: '', telnet: '' };
  const arrived = (side: 'raw' | 'telnet', text: string) => {
    greeted[side] = (greeted[side] + text).slice(-64);
    const w = waiting[side];
    if (w && text.includes(w.key)) {
      waiting[side] = undefined;
      w.done();
    }
  };
  raw.socket.on('data', (chunk: Buffer) => arrived('raw', chunk.toString('latin1')));
  const output = new ConsoleOutput();
  const connection = attachTelnet(telnet.socket, {
    onText: (t) => arrived('telnet', output.write(t)),
    onClose: () => undefined,
  });
  await waitFor(() => greeted.raw.includes('\x07') && greeted.telnet.includes('\x07'), 'the console greetings');
  greeted = { raw: '', telnet: '' };
  const echo = (side: 'raw' | 'telnet', key: string, send: () => void): Promise<number> =>
    new Promise((resolve) => {
      const start = performance.now();
      waiting[side] = { key, done: () => resolve(performance.now() - start) };
      send();
    });
  const times = { telnet: [] as number[], raw: [] as number[] };
  const until = performance.now() + KEYSTROKE_BUDGET_MS;
  for (let i = 0; i < KEYSTROKES && performance.now() < until; i++) {
    times.raw.push(await echo('raw', 'q', () => raw.socket.write('q')));
    times.telnet.push(await echo('telnet', 'k', () => connection.send('k')));
    if (i % 50 === 49) {
      // Ctrl-U empties the device's line (it keeps at most 4 KiB).
      raw.socket.write('\x15');
      await sleep(5);
    }
  }
  connection.close();
  raw.socket.end();
  await Promise.all([raw.closed, telnet.closed]);
  return times;
}

async function main(): Promise<void> {
  const agent = await startAgentProcess({ bootMs: 50 });
  const client = await agent.loggedIn();
  try {
    progress(`console: deploying a node with a ${CONFIG_BYTES / MiB} MiB startup config`);
    const yaml = labText();
    const files = { 'configs/r1.cfg': bigConfig(CONFIG_BYTES) };
    const deployed = await client.deployProject({ yaml, files });
    const project = { yaml, files: {}, state: deployed.state };
    await client.execProject({ ...project, action: 'start', node: 'r1' });
    for (let i = 0; i < 100; i++) {
      const status = await client.getProjectStatus(project);
      if (status.nodes?.every((n) => n.state === 'running')) break;
      await sleep(50);
    }
    const payload: ConsolePayload = { ...project, node: 'r1' };
    progress('console: throughput rounds');

    // One warm-up of each, keeping the raw bytes for the CPU-only figure.
    const recorded: Buffer[] = [];
    await rawRound(client, payload, recorded);
    await telnetRound(client, payload);

    const rates = { raw: [] as number[], telnet: [] as number[], ratio: [] as number[] };
    let streamBytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const first = round % 2 === 0 ? 'raw' : 'telnet';
      const results: Record<string, { bytes: number; ms: number }> = {};
      for (const side of first === 'raw' ? ['raw', 'telnet'] : ['telnet', 'raw']) {
        results[side] = side === 'raw' ? await rawRound(client, payload) : await telnetRound(client, payload);
      }
      streamBytes = results.raw.bytes;
      const raw = results.raw.bytes / 1e6 / (results.raw.ms / 1000);
      const telnet = results.telnet.bytes / 1e6 / (results.telnet.ms / 1000);
      rates.raw.push(raw);
      rates.telnet.push(telnet);
      rates.ratio.push(telnet / raw);
    }
    report({
      name: 'console stream throughput to the terminal (telnet, UTF-8, line ends)',
      value: median(rates.telnet),
      unit: 'MB/s',
      baseline: { name: BASELINE, value: median(rates.raw) },
      ratio: median(rates.ratio),
      targets: [{ on: 'ratio', op: '>=', limit: 0.5 }],
      note: `${(streamBytes / MiB).toFixed(1)} MiB of \`show running-config\` a round (one line in 50 non-ASCII), median of ${ROUNDS} per-round ratios`,
    });

    // The terminal's path alone, on the bytes recorded from the agent: what it can take at most.
    const total = recorded.reduce((n, b) => n + b.length, 0);
    const cpu: number[] = [];
    for (let i = 0; i < 5; i++) {
      const session = new TelnetProtocol(() => undefined);
      const output = new ConsoleOutput();
      const start = performance.now();
      let chars = 0;
      for (const chunk of recorded) chars += output.write(session.receive(chunk)).length;
      const ms = performance.now() - start;
      if (chars === 0) throw new Error('the telnet layer produced no text');
      cpu.push(total / 1e6 / (ms / 1000));
    }
    report({
      name: 'console terminal path alone (CPU, recorded stream)',
      value: median(cpu),
      unit: 'MB/s',
      note: 'no socket: TelnetProtocol.receive() then ConsoleOutput.write() over the recorded chunks',
    });

    progress('console: keystroke → echo');
    const echo = await keystrokes(client, payload);
    for (const p of [50, 95]) {
      report({
        name: `console keystroke → echo p${p}`,
        value: percentile(echo.telnet, p),
        unit: 'ms',
        baseline: { name: BASELINE, value: percentile(echo.raw, p) },
        targets: p === 95 ? [{ on: 'value', op: '<=', limit: 2 }] : undefined,
        note: p === 95 ? `${echo.telnet.length} keys each, the two consoles taking turns on one node` : undefined,
      });
    }
  } finally {
    await client.close();
    await agent.stop();
  }
}

runSection(main);
