/**
 * The emulator backends the agent can front, by the name `--emulator` takes.
 * Each backend is a folder of its own that imports no other backend; this is
 * the one module that knows them all.
 */
import type { EmulatorBackend } from './backend';
import { EveNgBackend, type EveNgSettings } from './eveng/eveng-backend';
import { LinuxEmulator } from './linux/linux-emulator';
import { SimulatedEmulator } from './simulated/simulated-emulator';

/** What any backend may need to open. */
export interface BackendSettings {
  dataDir: string;
  clock: () => number;
  log: (message: string) => void;
  /** The EVE-NG server, for eve-ng. */
  eveNg?: EveNgSettings;
  /** Simulated node boot time in ms. */
  bootMs: number;
  /** Time each simulated emulator write takes, in ms. */
  writeDelayMs: number;
  /** Linux: stop every lab when the agent stops. */
  stopLabsOnExit?: boolean;
  /** Linux: nodes one lab may have (default QUOTAS.nodesPerLab). */
  nodesPerLab?: number;
  /** Linux: node starts under way at once (default defaultConcurrentStarts()). */
  concurrentStarts?: number;
}

export interface OpenedBackend {
  backend: EmulatorBackend;
  /** The emulator in words, for the log and capabilities. */
  description: string;
  /** Why it cannot run here (empty when it can). */
  problems: string[];
}

const OPENERS = {
  simulated: (s: BackendSettings): Promise<OpenedBackend> =>
    Promise.resolve({
      backend: new SimulatedEmulator({
        dataDir: s.dataDir,
        clock: s.clock,
        bootMs: s.bootMs,
        writeDelayMs: s.writeDelayMs,
        log: s.log,
      }),
      description: 'simulated (EVE-NG style)',
      problems: [],
    }),
  linux: async (s: BackendSettings): Promise<OpenedBackend> => {
    const linux = await LinuxEmulator.open({
      dataDir: s.dataDir,
      log: s.log,
      stopLabsOnExit: s.stopLabsOnExit,
      nodesPerLab: s.nodesPerLab,
      concurrentStarts: s.concurrentStarts,
    });
    return { backend: linux, description: linux.description, problems: 'problems' in linux ? linux.problems : [] };
  },
  // EVE-NG logs in here, so a wrong URL, certificate or password stops the agent's start.
  'eve-ng': async (s: BackendSettings): Promise<OpenedBackend> => {
    if (!s.eveNg) throw new Error('The eve-ng emulator needs the EVE-NG server settings (eveNg).');
    return {
      backend: await EveNgBackend.open(s.eveNg, s.clock, s.log),
      description: `EVE-NG at ${new URL(s.eveNg.url).origin}`,
      problems: [],
    };
  },
} satisfies Record<string, (settings: BackendSettings) => Promise<OpenedBackend>>;

export type EmulatorKind = keyof typeof OPENERS;
export const EMULATOR_KINDS = Object.keys(OPENERS) as readonly EmulatorKind[];

export function openBackend(kind: EmulatorKind, settings: BackendSettings): Promise<OpenedBackend> {
  return OPENERS[kind](settings);
}
