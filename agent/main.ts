/**
 * The reference agent's command line: `node dist/agent.js [options]`.
 * Prints the two lines tests and the e2e runner read (listening URL and
 * certificate fingerprint), then serves until SIGINT or SIGTERM.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import { DEFAULT_PORT } from '../common/api/contract';
import { EMULATOR_KINDS, type EmulatorKind } from './emulator/registry';
import { DEFAULT_BOOT_MS, DEFAULT_WRITE_DELAY_MS, startAgent, type AgentOptions } from './server';
import { addUserCommand } from './add-user';
import {
  Credentials,
  DEFAULT_USER,
  PASSWORD_ENV,
  readUsersFile,
  USER_ENV,
  userFromEnvironment,
  type AgentUser,
} from './users';
import { EVE_NG_FLAGS, EVE_NG_USAGE, eveNgFromFlags } from './emulator/eveng/command-line';
import { DEFAULT_WORKER_HEAP_MB, DEFAULT_WORKER_SECONDS, MIN_WORKER_HEAP_MB } from './http/validate-workers';
import { DEFAULT_LABS_PER_USER } from './domain/lab-owners';
import { defaultConcurrentStarts, QUOTAS } from './emulator/linux/quotas';

/** The most --max-nodes-per-lab takes: 10,000 routers would need about 250 GiB. */
const MAX_NODES_PER_LAB = 10_000;

const USAGE = `Usage: node dist/agent.js [options]
       node dist/agent.js add-user NAME [--data-dir DIR | --users-file FILE]

The Lab Agent reference agent: the v1 agent API over HTTPS, in front of a
simulated EVE-NG style emulator, or of real labs on this Linux machine
(network namespaces and FRRouting; needs root and: apt-get install frr iputils-ping),
or of a real EVE-NG server.

Options:
  --host HOST           address to listen on (default 127.0.0.1)
  --port PORT           port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --users-file FILE     who may log in: "name:scrypt-hash" lines, mode 0600
                        (default DIR/users when it exists; add-user writes it)
                        or one user from ${USER_ENV} and ${PASSWORD_ENV};
                        without either, the demo user "lab" with password "lab"
                        (refused with --emulator linux)
  --data-dir DIR        certificate, emulator labs, apply journal, users (default .agent-data);
                        one agent per data directory
  --emulator KIND       simulated (default), linux (real labs: namespaces + FRR)
                        or eve-ng (a real EVE-NG server: the --emu-* flags below)
  --stop-labs-on-exit   linux: stop every lab when the agent stops (routers save their
                        running configs first); by default labs keep running and the
                        next start takes them back
  --max-labs-per-user N
                        labs one user may own, whatever the emulator (default ${DEFAULT_LABS_PER_USER})
  --max-nodes-per-lab N linux: nodes one lab may have (default ${QUOTAS.nodesPerLab}); a router
                        holds about 25 MiB
  --concurrent-starts N linux: node starts under way at once on this agent; more wait their
                        turn (default 16 per CPU or one per 64 MiB of memory, whichever
                        is fewer: here ${defaultConcurrentStarts()})
  --boot-ms N           how long a simulated node takes to boot, in ms (default ${DEFAULT_BOOT_MS})
  --write-delay-ms N    how long each write to the simulated emulator takes, in ms
                        (default ${DEFAULT_WRITE_DELAY_MS}); slow writes let an apply be watched
  --max-validate-memory MB
                        heap of each thread validating a large document (default ${DEFAULT_WORKER_HEAP_MB})
  --max-validate-seconds S
                        time one large document may take on such a thread (default ${DEFAULT_WORKER_SECONDS})
${EVE_NG_USAGE}  --help                show this help
`;

class UsageError extends Error {}

const NO_PASSWORDS_IN_ARGV = `--user NAME:PASSWORD is no longer accepted: a password on the command line is readable by every local user. Add users with "node dist/agent.js add-user NAME" (it asks for the password and writes DATA_DIR/users, mode 0600), or set ${USER_ENV} and ${PASSWORD_ENV}.`;

/** The options of the agent, and where its users came from (for the start-up lines). */
type Parsed = AgentOptions & { usersFrom: string };

function parseCommandLine(argv: string[]): Parsed | 'help' {
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
        'users-file': { type: 'string' },
        'data-dir': { type: 'string' },
        'boot-ms': { type: 'string' },
        'write-delay-ms': { type: 'string' },
        'max-validate-memory': { type: 'string' },
        'max-validate-seconds': { type: 'string' },
        emulator: { type: 'string' },
        'stop-labs-on-exit': { type: 'boolean' },
        'max-labs-per-user': { type: 'string' },
        'max-nodes-per-lab': { type: 'string' },
        'concurrent-starts': { type: 'string' },
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
  const validateSeconds = (seconds: number | undefined) => {
    if (seconds === 0) throw new UsageError('--max-validate-seconds must be at least 1.');
    return seconds;
  };
  const labsPerUser = integer('--max-labs-per-user', v['max-labs-per-user'], 100_000);
  if (labsPerUser === 0) throw new UsageError('--max-labs-per-user must be at least 1.');
  const nodesPerLab = integer('--max-nodes-per-lab', v['max-nodes-per-lab'], MAX_NODES_PER_LAB);
  if (nodesPerLab === 0) throw new UsageError('--max-nodes-per-lab must be at least 1.');
  const concurrentStarts = integer('--concurrent-starts', v['concurrent-starts'], QUOTAS.concurrentStarts.max);
  if (concurrentStarts === 0) throw new UsageError('--concurrent-starts must be at least 1.');
  if (v.user) throw new UsageError(NO_PASSWORDS_IN_ARGV);
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
  const dataDir = v['data-dir'] ?? '.agent-data';
  const { users, usersFrom } = loadUsers(v['users-file'], dataDir);
  return {
    host: v.host,
    port: integer('--port', v.port, 65535),
    users,
    usersFrom,
    dataDir,
    bootMs: integer('--boot-ms', v['boot-ms'], 600_000),
    writeDelayMs: integer('--write-delay-ms', v['write-delay-ms'], 60_000),
    validateHeapMb: validateHeapMb(integer('--max-validate-memory', v['max-validate-memory'], 65_536)),
    validateSeconds: validateSeconds(integer('--max-validate-seconds', v['max-validate-seconds'], 3600)),
    emulator: v.emulator as EmulatorKind | undefined,
    ...(v['stop-labs-on-exit'] ? { stopLabsOnExit: true } : {}),
    ...(labsPerUser !== undefined ? { labsPerUser } : {}),
    ...(nodesPerLab !== undefined ? { nodesPerLab } : {}),
    ...(concurrentStarts !== undefined ? { concurrentStarts } : {}),
    ...(eveNg ? { eveNg } : {}),
    log: (message) => console.error(`[agent] ${message}`),
  };
}

/** Users from the users file and the environment; none means the demo user. */
function loadUsers(usersFile: string | undefined, dataDir: string): { users: AgentUser[]; usersFrom: string } {
  const file = usersFile ?? join(dataDir, 'users');
  const users: AgentUser[] = [];
  const from: string[] = [];
  try {
    if (usersFile !== undefined || existsSync(file)) {
      users.push(...readUsersFile(file));
      from.push(file);
    }
    const fromEnv = userFromEnvironment(process.env);
    if (fromEnv) {
      users.push(fromEnv);
      from.push(USER_ENV);
    }
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return { users, usersFrom: from.join(' and ') };
}

/** Real labs give their users root-like powers over the machine's network: never with the published demo password. */
async function refuseDemoAccount(options: Parsed): Promise<void> {
  if (options.emulator !== 'linux') return;
  const credentials = await Credentials.of(options.users?.length ? options.users : [DEFAULT_USER]);
  if (await credentials.verify(DEFAULT_USER.username, DEFAULT_USER.password))
    throw new UsageError(
      `--emulator linux does not start with the demo account (user "${DEFAULT_USER.username}", password "${DEFAULT_USER.password}"). Add a user first: node dist/agent.js add-user NAME${options.dataDir === '.agent-data' ? '' : ` --data-dir ${options.dataDir}`} (or set ${USER_ENV} and ${PASSWORD_ENV}).`,
    );
}

async function main(): Promise<void> {
  if (process.argv[2] === 'add-user') {
    process.exit(await addUserCommand(process.argv.slice(3)));
  }
  let options: Parsed | 'help';
  try {
    options = parseCommandLine(process.argv.slice(2));
    if (options !== 'help') await refuseDemoAccount(options);
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
      `Using the default user ${DEFAULT_USER.username}, password ${DEFAULT_USER.password} (add your own with: node dist/agent.js add-user NAME).`,
    );
  else console.log(`Users: ${options.users.map((u) => u.username).join(', ')} (from ${options.usersFrom})`);

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

// The bundle also runs as the validate worker (http/validate-workers.ts): only the main thread serves.
if (isMainThread) void main();
