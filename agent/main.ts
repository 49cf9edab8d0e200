/**
 * The reference agent's command line: `node dist/agent.js [options]`.
 * Prints the two lines tests and the e2e runner read (listening URL and
 * certificate fingerprint), then serves until SIGINT or SIGTERM.
 */
import { parseArgs } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import { DEFAULT_PORT } from '../common/api/contract';
import type { AgentUser } from './context';
import {
  DEFAULT_BOOT_MS,
  DEFAULT_USER,
  EMULATOR_KINDS,
  startAgent,
  type AgentOptions,
  type EmulatorKind,
} from './server';
import { EVE_NG_FLAGS, EVE_NG_USAGE, eveNgFromFlags } from './emulator/eveng/command-line';
import { DEFAULT_WORKER_HEAP_MB, MIN_WORKER_HEAP_MB } from './project/validate-workers';

const USAGE = `Usage: node dist/agent.js [options]

The Lab Agent reference agent: the v1 agent API over HTTPS, in front of a
simulated EVE-NG style emulator, or of real labs on this Linux machine
(network namespaces and FRRouting; needs root and: apt-get install frr iputils-ping),
or of a real EVE-NG server.

Options:
  --host HOST           address to listen on (default 127.0.0.1)
  --port PORT           port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --user NAME:PASSWORD  a user who may log in; repeat for more users
                        (default: the demo user "lab" with password "lab")
  --data-dir DIR        certificate, emulator labs and apply journal (default .agent-data)
  --emulator KIND       simulated (default), linux (real labs: namespaces + FRR)
                        or eve-ng (a real EVE-NG server: the --emu-* flags below)
  --stop-labs-on-exit   linux: stop every lab when the agent stops (routers save their
                        running configs first); by default labs keep running and the
                        next start takes them back
  --boot-ms N           how long a simulated node takes to boot, in ms (default ${DEFAULT_BOOT_MS})
  --max-validate-memory MB
                        heap of each thread validating a large document (default ${DEFAULT_WORKER_HEAP_MB})
${EVE_NG_USAGE}  --help                show this help
`;

class UsageError extends Error {}

function parseCommandLine(argv: string[]): AgentOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        user: { type: 'string', multiple: true },
        'data-dir': { type: 'string' },
        'boot-ms': { type: 'string' },
        'max-validate-memory': { type: 'string' },
        emulator: { type: 'string' },
        'stop-labs-on-exit': { type: 'boolean' },
        help: { type: 'boolean' },
        ...EVE_NG_FLAGS,
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const integer = (flag: string, text: string | undefined, max: number): number | undefined => {
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text) || Number(text) > max)
      throw new UsageError(`${flag} must be a whole number from 0 to ${max}, not "${text}".`);
    return Number(text);
  };
  const validateHeapMb = (mb: number | undefined) => {
    if (mb !== undefined && mb < MIN_WORKER_HEAP_MB)
      throw new UsageError(`--max-validate-memory must be at least ${MIN_WORKER_HEAP_MB} (MB), not ${mb}.`);
    return mb;
  };
  const users: AgentUser[] = (v.user ?? []).map((spec) => {
    const colon = spec.indexOf(':');
    if (colon <= 0 || colon === spec.length - 1)
      throw new UsageError('--user takes NAME:PASSWORD, with a non-empty name and password.');
    return { username: spec.slice(0, colon), password: spec.slice(colon + 1) };
  });
  if (v.host !== undefined && v.host.trim() === '') throw new UsageError('--host must not be empty.');
  if (v['data-dir'] !== undefined && v['data-dir'].trim() === '') throw new UsageError('--data-dir must not be empty.');
  if (v.emulator !== undefined && !(EMULATOR_KINDS as readonly string[]).includes(v.emulator))
    throw new UsageError(`--emulator must be ${EMULATOR_KINDS.join(' or ')}, not "${v.emulator}".`);
  let eveNg;
  try {
    eveNg = eveNgFromFlags(v, process.env);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return {
    host: v.host,
    port: integer('--port', v.port, 65535),
    users,
    dataDir: v['data-dir'] ?? '.agent-data',
    bootMs: integer('--boot-ms', v['boot-ms'], 600_000),
    validateHeapMb: validateHeapMb(integer('--max-validate-memory', v['max-validate-memory'], 65_536)),
    emulator: v.emulator as EmulatorKind | undefined,
    ...(v['stop-labs-on-exit'] ? { stopLabsOnExit: true } : {}),
    ...(eveNg ? { eveNg } : {}),
    log: (message) => console.error(`[agent] ${message}`),
  };
}

async function main(): Promise<void> {
  let options: AgentOptions | 'help';
  try {
    options = parseCommandLine(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`lab-agent: ${e.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  let agent;
  try {
    agent = await startAgent(options);
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    const reason =
      error.code === 'EADDRINUSE'
        ? `port ${options.port ?? DEFAULT_PORT} is already in use; pick another with --port (0 picks a free one)`
        : error.code === 'EACCES'
          ? `not allowed to listen there (${error.message})`
          : error.message;
    process.stderr.write(`lab-agent: cannot start: ${reason}\n`);
    process.exit(1);
  }
  console.log(`Lab Agent reference agent listening on ${agent.url}`);
  console.log(`Certificate SHA-256 fingerprint: ${agent.fingerprint}`);
  console.log(`Emulator: ${agent.emulator}`);
  if (agent.emulatorProblems.length)
    console.error(
      `lab-agent: the ${options.emulator} emulator cannot run on this machine:\n${agent.emulatorProblems.map((p) => `  - ${p}`).join('\n')}\nEvery emulator call answers 502 emu_unreachable with this reason until it is fixed and the agent restarted.`,
    );
  if (!options.users?.length)
    console.log(
      `Using the default user ${DEFAULT_USER.username}, password ${DEFAULT_USER.password} (set your own with --user NAME:PASSWORD).`,
    );
  else console.log(`Users: ${options.users.map((u) => u.username).join(', ')}`);

  const stop = (signal: string) => {
    console.log(`Stopping (${signal})…`);
    agent.close().then(
      () => process.exit(0),
      (e: Error) => {
        process.stderr.write(`lab-agent: error while stopping: ${e.message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // A bug in one request must not take the agent (and everyone's sessions) down.
  process.on('uncaughtException', (e) =>
    console.error(`[agent] internal error (kept running): ${e.stack ?? e.message}`),
  );
  process.on('unhandledRejection', (e) =>
    console.error(`[agent] internal error (kept running): ${e instanceof Error ? e.stack : String(e)}`),
  );
}

// The bundle also runs as the validate worker (projects/validate-workers.ts): only the main thread serves.
if (isMainThread) void main();
