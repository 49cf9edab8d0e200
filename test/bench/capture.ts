/**
 * Packet capture through the agent (decisions §14) on the Linux emulator: the
 * agent as the user runs it (`dist/agent.js --emulator linux`), a lab of two
 * hosts on one link, and a ping flood from one to the other for a fixed time
 * (BENCH_CAPTURE_SECONDS, default 60). Two runs of the same flood:
 *
 * - baseline (the floor): tcpdump writing the link to a file, in the lab's
 *   fabric namespace where the agent captures too, with no agent in between;
 * - the agent: startCapture on a:eth0 and its stream read over HTTPS by a
 *   client that writes it to a file.
 *
 * Figures: packets per second captured (packets in the file / flood time),
 * the share of the link's packets captured, and the agent's RSS during the
 * capture (its peak, sampled every 200 ms, against its RSS before).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentClient } from '../../common/api/client';
import { LinuxNames } from '../../agent/emulator/linux/names';
import { requireLinuxLabs } from '../linux/support';
import { startAgentProcess, type AgentProcess } from './support/agent-process';
import { MiB, progress, report, runSection } from './support/report';
import { since, sleep } from './support/stats';

const SECONDS = Number(process.env.BENCH_CAPTURE_SECONDS ?? 60);
const LAB = [
  'name: bench-capture',
  'defaults:',
  '  template: linux',
  '  ethernet: 1',
  'nodes:',
  '  a:',
  '    config: a.sh',
  '  b:',
  '    config: b.sh',
  'links:',
  '  - endpoints: [a:eth0, b:eth0]',
  '',
].join('\n');
const FILES = { 'a.sh': 'ip address add 10.9.0.1/24 dev eth0\n', 'b.sh': 'ip address add 10.9.0.2/24 dev eth0\n' };
const BASELINE = 'tcpdump to a file in the same namespace';

/** Packets in a capture file, as Wireshark's capinfos counts them. */
function packetsIn(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('capinfos', ['-M', '-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const n = /Number of packets:\s+(\d+)/.exec(out)?.[1];
      if (n === undefined) reject(new Error(`capinfos could not count ${file}: ${out}`));
      else resolve(Number(n));
    });
  });
}

/** Floods b from a for SECONDS; resolves with the packets that crossed the link (requests and replies) and the time. */
async function flood(client: AgentClient, state: unknown): Promise<{ packets: number; ms: number }> {
  const started = performance.now();
  const result = await client.execConsole(
    {
      yaml: LAB,
      files: FILES,
      state,
      node: 'a',
      command: `ping -f -q -w ${SECONDS} 10.9.0.2`,
      timeout_ms: (SECONDS + 30) * 1000,
    },
    // The call's own deadline (15 s by default) must outlast the flood.
    { timeoutMs: (SECONDS + 45) * 1000 },
  );
  const m = /(\d+) packets transmitted, (\d+) received/.exec(result.output ?? '');
  if (!m) throw new Error(`the flood did not run: ${result.output}`);
  return { packets: Number(m[1]) + Number(m[2]), ms: since(started) };
}

async function main(): Promise<void> {
  await requireLinuxLabs();
  const work = mkdtempSync(join(tmpdir(), 'lab-bench-capture-'));
  let agent: AgentProcess | undefined;
  try {
    agent = await startAgentProcess({ emulator: 'linux' });
    const client = await agent.loggedIn();
    const { state } = await client.deployProject({ yaml: LAB, files: FILES });
    await client.execProject({ yaml: LAB, files: FILES, state, action: 'start' });
    const agentId = readFileSync(join(agent.dataDir, 'linux-agent-id'), 'utf8').trim();
    const names = new LinuxNames(agentId);
    const fabric = names.fabricNamespace('/lab-agent/bench-capture.unl');
    const port = names.fabricPort(1, 0);

    progress(`baseline: tcpdump on ${port} in ${fabric} while a floods b for ${SECONDS} s`);
    const floorFile = join(work, 'floor.pcap');
    const tcpdump = spawn('ip', ['netns', 'exec', fabric, 'tcpdump', '-q', '-i', port, '-w', floorFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let tcpdumpSaid = '';
    tcpdump.stderr.on('data', (c: Buffer) => (tcpdumpSaid += c.toString()));
    await sleep(1000);
    const floorFlood = await flood(client, state);
    await sleep(500);
    tcpdump.kill('SIGINT');
    await new Promise((done) => tcpdump.once('close', done));
    const floorPackets = await packetsIn(floorFile);
    progress(
      `tcpdump: ${floorPackets} of ${floorFlood.packets} packets; ${tcpdumpSaid.trim().split('\n').slice(-2).join(' / ')}`,
    );

    progress(`the agent: startCapture a:eth0, stream read over HTTPS, while a floods b for ${SECONDS} s`);
    const agentFile = join(work, 'agent.pcapng');
    const rssBefore = agent.rss() ?? NaN;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, agent?.rss() ?? 0)), 200);
    const capture = await client.startCapture({ yaml: LAB, files: FILES, state, targets: ['a:eth0'] });
    const out = createWriteStream(agentFile);
    const running = agent;
    let req: ReturnType<typeof httpsRequest> | undefined;
    const streamed = new Promise<void>((resolve, reject) => {
      req = httpsRequest(
        new URL(capture.stream ?? '', running.url),
        { rejectUnauthorized: false, headers: { authorization: `Bearer ${client.token}` } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`stream: HTTP ${res.statusCode}`));
          res.pipe(out);
          res.on('close', () => out.end(() => resolve()));
        },
      );
      req.on('error', () => undefined);
      req.end();
    });
    await sleep(1000);
    const agentFlood = await flood(client, state);
    await sleep(1500);
    req?.destroy();
    await streamed;
    clearInterval(sampler);
    const agentPackets = await packetsIn(agentFile);
    progress(`the agent: ${agentPackets} of ${agentFlood.packets} packets`);

    const floorRate = floorPackets / (floorFlood.ms / 1000);
    const agentRate = agentPackets / (agentFlood.ms / 1000);
    report({
      name: `capture packets/s through the agent's stream (ping flood, ${SECONDS} s)`,
      value: agentRate,
      unit: 'packets/s',
      baseline: { name: BASELINE, value: floorRate },
      targets: [{ on: 'ratio', op: '>=', limit: 0.5 }],
      note: `the flood put ${agentFlood.packets} packets on the link (tcpdump's run: ${floorFlood.packets})`,
    });
    report({
      name: "share of the link's packets captured by the agent",
      value: (100 * agentPackets) / agentFlood.packets,
      unit: '%',
      baseline: { name: BASELINE, value: (100 * floorPackets) / floorFlood.packets },
    });
    report({
      name: `agent RSS during the capture (peak, ${SECONDS} s flood)`,
      value: rssPeak / MiB,
      unit: 'MiB',
      note: `${(rssBefore / MiB).toFixed(1)} MiB before the capture`,
      targets: [{ on: 'value', op: '<=', limit: rssBefore / MiB + 64 }],
    });
    await client.destroyProject({ yaml: LAB, files: FILES, state });
    await client.close();
  } finally {
    await agent?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runSection(main);
