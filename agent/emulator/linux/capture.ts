/**
 * Packet capture on the Linux emulator (decisions §14), with Wireshark's
 * dumpcap (Debian's `tshark` package brings it).
 *
 * Where: every node interface is one end of a veth pair whose other end
 * (n<node>e<index>) lives in the lab's fabric namespace, which only the agent
 * uses. Capturing on those fabric ends sees exactly what the interfaces send
 * and receive, puts all the targets of a lab in one namespace, and runs
 * nothing in a node's namespace or sandbox, where the node's user could see,
 * signal or starve it.
 *
 * Why dumpcap rather than tcpdump: with every target in one namespace, one
 * dumpcap process captures them all and writes multi-interface pcapng itself
 * (one interface block per `-i`, in order), where tcpdump writes one interface
 * per pcap file (one process per target, and a conversion). dumpcap hands the
 * interfaces' packets over in batches, so their timestamps interleave out of
 * order (capinfos: "Strict time order: False"); the agent merges them
 * (../pcapng.ts). It also compiles a filter without capturing (`-d`).
 *
 * Processes: each dumpcap runs in a cgroup of its own named with the agent's
 * prefix (lab-<agent>-cap<id>), under `setpriv --pdeathsig KILL`, so it dies
 * with the agent; a start after kill -9 removes any left with the other
 * leftovers (leftovers.ts finds cgroups by the prefix). It is read only as
 * fast as the capture's reader takes the packets: meanwhile the kernel's
 * capture buffer fills and dumpcap counts the packets it drops.
 */
import type { ChildProcess } from 'node:child_process';
import { endianness } from 'node:os';
import type { Readable } from 'node:stream';
import {
  CaptureFilterError,
  EmuError,
  type CaptureSpec,
  type CaptureStop,
  type EmulatorCapture,
  type PacketCapture,
} from '../backend';
import { BLOCK, BlockReader, BlockWriter, PacketMerger } from '../pcapng';
import type { NodeLimits } from './cgroup';
import { CgroupProcesses, pulledOutput } from './cgroup-processes';
import { runProcess } from './command';
import type { LinuxNames } from './names';
import type { LinuxLab, LinuxNode } from './linux-lab';
import type { Realizer } from './realizer';
import type { LinuxSummarizers } from './tshark-summaries';

const DUMPCAP = 'dumpcap';
/** After SIGTERM, dumpcap gets this long to write its statistics before it is killed. */
const STOP_GRACE_MS = 2_000;
/** A packet of a capture of several interfaces is held this long for older packets of the others. */
const MERGE_WINDOW_MS = 1_000;
const MERGE_TICK_MS = 200;
/** Packet bytes a capture holds at most for the merge (decisions §14: 4 MiB). */
const MAX_HELD_BYTES = 4 * 1024 * 1024;
/** Arrays of blocks queued for the reader before dumpcap's output is no longer read. */
const OUTPUT_BATCHES = 8;
/** dumpcap's kernel buffer per interface, MiB (its default). */
const KERNEL_BUFFER_MIB = 2;
/** A capture process's cgroup: a few threads per interface, the kernel buffers and dumpcap's own. */
const CAPTURE_LIMITS: NodeLimits = { pids: 64, memoryMiB: 256, cpus: 1 };
const STDERR_BYTES = 4096;

/** dumpcap's version when it is installed. */
export async function probeDumpcap(): Promise<string | undefined> {
  const result = await runProcess(DUMPCAP, ['--version'], { timeoutMs: 10_000 });
  return result.code === 0 ? (/Dumpcap \(Wireshark\) (\S+)/.exec(result.stdout)?.[1] ?? 'unknown') : undefined;
}

/** Where the packets of a lab's interfaces can be seen. */
export interface CaptureSite {
  labPath: string;
  /** The lab's fabric namespace. */
  fabric: string;
  /** Each target's fabric port, in the order of the spec's targets. */
  ports: string[];
  nodeIds: number[];
}

/** The running captures of one Linux emulator. */
export class LinuxCaptures extends CgroupProcesses<DumpcapCapture> {
  /** Compiles the filter for the site's first port without capturing (`dumpcap -d`). */
  async checkFilter(site: CaptureSite, filter: string): Promise<void> {
    if (!filter) return;
    const result = await runProcess(
      'ip',
      ['netns', 'exec', site.fabric, DUMPCAP, '-i', site.ports[0], '-f', filter, '-d'],
      { timeoutMs: 10_000 },
    );
    // dumpcap exits 0 either way: compiled code is printed as "(000) ldh [12]" lines.
    if (result.code === 0 && /^\(000\)/m.test(result.stdout)) return;
    const said = result.stderr
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !/^(Capturing on|See the User's Guide|Running as user)/.test(line))
      .join(' ');
    throw new CaptureFilterError(
      said.replace(/^dumpcap: /, '') || `dumpcap could not compile the filter (exit ${result.code ?? 'killed'}).`,
    );
  }

  /** Starts dumpcap on the site's ports; resolves once it runs. */
  start(site: CaptureSite, spec: CaptureSpec): Promise<PacketCapture> {
    return this.spawnInCgroup({
      kind: 'cap',
      limits: CAPTURE_LIMITS,
      argv: [
        'ip',
        'netns',
        'exec',
        site.fabric,
        'setpriv',
        '--pdeathsig',
        'KILL',
        '--',
        DUMPCAP,
        '-q',
        '-n',
        // Before the first -i these are every interface's; after one, only that interface's.
        '-s',
        String(spec.snaplen),
        '-B',
        String(KERNEL_BUFFER_MIB),
        ...(spec.filter ? ['-f', spec.filter] : []),
        ...site.ports.flatMap((port) => ['-i', port]),
        '-w',
        '-',
      ],
      options: { stdio: ['ignore', 'pipe', 'pipe'] },
      handle: (child, exited) => {
        const capture = new DumpcapCapture(child, site, spec, () => {
          exited();
          if (capture.endedBy === 'failed') this.log(`capture on ${site.labPath} failed: ${capture.stderr.trim()}`);
        });
        return capture;
      },
    });
  }

  /** A node stopped, was wiped or deleted: its captures end. */
  endNode(labPath: string, nodeId: number): void {
    for (const capture of this.running)
      if (capture.site.labPath === labPath && capture.site.nodeIds.includes(nodeId)) capture.stop('node_stopped');
  }

  /** The agent stops: every capture ends, and this resolves when their processes are gone. */
  closeAll(): Promise<void> {
    return this.stopAll((capture) => capture.stop('agent_stopping'));
  }
}

class DumpcapCapture implements PacketCapture {
  readonly output: Readable;
  readonly exited: Promise<void>;
  endedBy: CaptureStop | undefined;
  stderr = '';
  private requested: CaptureStop | undefined;
  private readonly reader = new BlockReader();
  private readonly writer = new BlockWriter(endianness() === 'LE');
  private readonly merger: PacketMerger;
  private readonly tsresol: number[] = [];
  private readonly statistics: Buffer[] = [];
  private readonly tick: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly child: ChildProcess,
    readonly site: CaptureSite,
    spec: CaptureSpec,
    onExit: () => void,
  ) {
    const stdout = child.stdout as Readable;
    this.output = pulledOutput(stdout, OUTPUT_BATCHES, () => this.stop());
    this.merger = new PacketMerger({
      interfaces: spec.targets.length,
      windowMs: spec.targets.length > 1 ? MERGE_WINDOW_MS : 0,
      maxHeldBytes: MAX_HELD_BYTES,
    });
    this.output.push([
      this.writer.sectionHeader('lab-agent'),
      ...spec.targets.map((target) =>
        this.writer.interfaceDescription({
          name: target.label,
          description: site.labPath,
          filter: spec.filter,
          snaplen: spec.snaplen,
        }),
      ),
    ]);
    if (spec.targets.length > 1) {
      this.tick = setInterval(() => this.deliver(this.merger.due(false)), MERGE_TICK_MS);
      this.tick.unref();
    }
    stdout.on('data', (chunk: Buffer) => this.take(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      if (this.stderr.length < STDERR_BYTES) this.stderr += chunk.toString();
    });
    this.exited = new Promise<void>((resolve) => {
      child.on('error', (e) => {
        this.stderr += e.message;
      });
      child.on('close', (code) => {
        clearInterval(this.tick);
        clearTimeout(this.killTimer);
        this.endedBy = this.requested ?? (code === 0 ? 'stopped' : 'failed');
        this.deliver(this.merger.due(true));
        this.deliver(this.statisticsBlocks());
        if (!this.output.destroyed) this.output.push(null);
        onExit();
        resolve();
      });
    });
  }

  stop(reason: CaptureStop = 'stopped'): void {
    if (this.requested || this.endedBy) return;
    this.requested = reason;
    // dumpcap writes its statistics on SIGTERM; what it writes is read even if the reader is slow.
    this.child.stdout?.resume();
    this.child.kill('SIGTERM');
    this.killTimer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    this.killTimer.unref();
  }

  private take(chunk: Buffer): void {
    if (this.output.destroyed) return;
    let blocks;
    try {
      blocks = this.reader.push(chunk);
    } catch (e) {
      this.stderr += `${(e as Error).message}\n`;
      this.stop('failed');
      return;
    }
    const due: Buffer[] = [];
    for (const block of blocks) {
      if (block.type === BLOCK.interfaceDescription) this.tsresol.push(this.reader.tsresol(block.bytes));
      else if (block.type === BLOCK.enhancedPacket) {
        const interfaceId = this.reader.u32(block.bytes, 8);
        due.push(...this.merger.add(this.reader, block.bytes, this.tsresol[interfaceId] ?? 6));
      } else if (block.type === BLOCK.interfaceStatistics) this.statistics.push(Buffer.from(block.bytes));
      // The section header is the agent's own; name resolution and other blocks are left out.
    }
    if (this.reader.littleEndian !== (endianness() === 'LE')) {
      this.stderr += 'dumpcap wrote another byte order than this machine\n';
      this.stop('failed');
      return;
    }
    this.deliver(due);
  }

  private deliver(blocks: Buffer[]): void {
    if (!blocks.length || this.output.destroyed || this.output.readableEnded) return;
    if (!this.output.push(blocks) && !this.requested) this.child.stdout?.pause();
  }

  /** dumpcap's statistics, with the packets the merge left out (arrived too late) said in a comment. */
  private statisticsBlocks(): Buffer[] {
    return this.statistics.map((isb) => {
      const interfaceId = this.reader.u32(isb, 8);
      const late = this.merger.late[interfaceId] ?? 0;
      return late
        ? this.writer.withComment(
            isb,
            `${late} packet(s) arrived over ${MERGE_WINDOW_MS} ms after newer ones and were left out to keep the time order`,
          )
        : isb;
    });
  }
}

/** What the capture client needs of the Linux emulator (LinuxEmulator has it). */
export interface CaptureHost {
  readonly captures: LinuxCaptures;
  readonly names: LinuxNames;
  readonly realizer: Realizer;
  /** Runs `work` alone on the lab (no node starts or stops meanwhile). */
  structure<T>(path: string, work: () => T | Promise<T>): Promise<T>;
  /** Runs `work` beside other calls on the lab's nodes (a read). */
  onNode<T>(path: string, node: number | undefined, work: () => T | Promise<T>): Promise<T>;
  lab(path: string): LinuxLab;
  node(lab: LinuxLab, id: number): LinuxNode;
  isRunning(lab: LinuxLab, node: LinuxNode): Promise<boolean>;
}

/**
 * The capture of one agent session (the same for every session: the machine has one set of labs),
 * with packet summaries when tshark is installed (tshark-summaries.ts).
 */
export function captureClient(host: CaptureHost, summarizers?: LinuxSummarizers): EmulatorCapture {
  const siteOf = (lab: LinuxLab, spec: CaptureSpec): CaptureSite => {
    for (const target of spec.targets) {
      const node = host.node(lab, target.nodeId);
      if (target.index < 0 || target.index >= node.links.length)
        throw new EmuError('not_found', `${node.name} has no interface ${target.index}.`);
    }
    return {
      labPath: lab.path,
      fabric: host.realizer.fabricNs(lab),
      ports: spec.targets.map((t) => host.names.fabricPort(t.nodeId, t.index)),
      nodeIds: spec.targets.map((t) => t.nodeId),
    };
  };
  return {
    async checkFilter(path, spec) {
      const site = await host.onNode(path, undefined, () => siteOf(host.lab(path), spec));
      await host.captures.checkFilter(site, spec.filter);
    },
    // Alone on the lab, so a node stopping at the same time either ends the capture or is seen stopped.
    start: (path, spec) =>
      host.structure(path, async () => {
        const lab = host.lab(path);
        const site = siteOf(lab, spec);
        for (const target of spec.targets) {
          const node = host.node(lab, target.nodeId);
          if (!(await host.isRunning(lab, node))) throw new EmuError('refused', `${node.name} is not running.`);
        }
        return host.captures.start(site, spec);
      }),
    ...(summarizers && { summarize: () => summarizers.start() }),
  };
}
