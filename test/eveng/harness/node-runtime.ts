/**
 * The node runtime behind the UNetLab/EVE-NG harness: a stand-in for
 * `/opt/unetlab/wrappers/unl_wrapper`, which the server's PHP runs through
 * `sudo` for every start, stop, wipe, export and delete. Each call is
 * appended to `calls.jsonl` in the harness's state directory. `-a start`
 * opens a telnet console on the port the server itself computes for the node
 * (UNetLab: 32768 + 128 × tenant + node id; EVE-NG 6.2: 256 per tenant, set by the
 * wrapper script in HARNESS_PORTS_PER_TENANT), which is all the PHP looks at to
 * call a node running (`Node::getStatus` greps netstat for the port);
 * `-a stop`/`wipe`/`stopall` close it. Nothing else of a node runs.
 *
 * The console stands in for the device the image would run: the title is the
 * node's name, as the real wrapper is given it (`cli.php`: `qemu_wrapper … -t
 * "<name>"`), and it answers `show version` with the template's banner at the
 * template's prompt, as the fake's nodes do (fake-templates.ts).
 *
 * Usage (written into the wrapper script by unetlab-harness.ts):
 *   node node-runtime.js STATE_DIR [unl_wrapper arguments…]
 *   node node-runtime.js STATE_DIR --console PORT NAME TEMPLATE   (the console process itself)
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeConsole } from '../fake-console';
import { FAKE_TEMPLATES, type FakeTemplate } from '../fake-templates';
import { portAnswers } from './port';

/** What each stubbed call looked like: the arguments the PHP passed. */
export interface RuntimeCall {
  at: string;
  args: string[];
}

const CONSOLE_BASE_PORT = 32768;
const PORTS_PER_TENANT = Number(process.env.HARNESS_PORTS_PER_TENANT ?? 128);

function option(args: string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
}

/** The nodes of a lab file, by id, as the PHP wrote them (`<node id="1" name="r1" template="vios" …>`). */
function labNodes(file: string): Map<number, { name: string; template: string }> {
  const nodes = new Map<number, { name: string; template: string }>();
  const xml = readFileSync(file, 'utf8');
  for (const tag of xml.match(/<node\s[^>]*>/g) ?? []) {
    const id = /\bid="(\d+)"/.exec(tag)?.[1];
    const name = /\bname="([^"]*)"/.exec(tag)?.[1] ?? '';
    const template = /\btemplate="([^"]*)"/.exec(tag)?.[1] ?? '';
    if (id) nodes.set(Number(id), { name, template });
  }
  return nodes;
}

/** What the node's device shows on its console: its template's prompt, and its banner for `show version`. */
function device(name: string, templateId: string) {
  const template = FAKE_TEMPLATES[templateId] as FakeTemplate | undefined;
  const prompt =
    template?.prompt === 'linux' ? `root@${name}:~# ` : template?.prompt === 'vpcs' ? 'VPCS> ' : `${name}#`;
  return {
    title: name,
    prompt: () => prompt,
    run: (line: string) => {
      const words = line.trim().split(/\s+/).filter(Boolean);
      if (!words.length) return '';
      if (template && /^sh/.test(words[0]) && /^ver/.test(words[1] ?? '')) return `${template.banner}\r\n`;
      return `% ${line.trim()}: stub node, nothing else runs\r\n`;
    },
  };
}

async function waitFor(check: () => Promise<boolean>, attempts: number): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

class Runtime {
  private readonly pidDir: string;

  constructor(private readonly stateDir: string) {
    this.pidDir = join(stateDir, 'consoles');
    mkdirSync(this.pidDir, { recursive: true });
  }

  async startNode(port: number, node: { name: string; template: string }): Promise<boolean> {
    if (await portAnswers(port)) return true; // already running: the real wrapper skips it too
    const args = [__filename, this.stateDir, '--console', String(port), node.name, node.template];
    const child = spawn(process.execPath, args, {
      detached: true,
      stdio: 'ignore',
    });
    child.unref();
    writeFileSync(join(this.pidDir, `${port}.pid`), String(child.pid));
    return waitFor(() => portAnswers(port), 100);
  }

  stopNode(port: number): void {
    const pidFile = join(this.pidDir, `${port}.pid`);
    if (!existsSync(pidFile)) return;
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
    } catch {
      // Already gone.
    }
    rmSync(pidFile, { force: true });
  }

  stopAll(): void {
    for (const f of readdirSync(this.pidDir)) this.stopNode(Number(f.replace(/\.pid$/, '')));
  }
}

async function main(argv: string[]): Promise<number> {
  const [stateDir, ...args] = argv;
  if (!stateDir) return 9;
  if (args[0] === '--console') {
    const port = Number(args[1]);
    const { console, port: got } = await FakeConsole.open(device(args[2] ?? `node ${port}`, args[3] ?? ''), port);
    if (got !== port) {
      console.close();
      return 1;
    }
    process.on('SIGTERM', () => {
      console.close();
      process.exit(0);
    });
    return -1; // keep serving
  }
  const call: RuntimeCall = { at: new Date().toISOString(), args };
  appendFileSync(join(stateDir, 'calls.jsonl'), `${JSON.stringify(call)}\n`);
  const runtime = new Runtime(stateDir);
  const action = option(args, '-a');
  if (action === 'stopall') {
    runtime.stopAll();
    return 0;
  }
  if (!['start', 'stop', 'wipe', 'delete', 'export'].includes(action ?? '')) return 0;
  const file = option(args, '-F');
  const tenant = Number(option(args, '-T') ?? 0);
  if (!file || !existsSync(file)) return 6; // the real wrapper's "lab file not found"
  const nodes = labNodes(file);
  const only = option(args, '-D');
  const ids = only === undefined ? [...nodes.keys()] : [Number(only)];
  if (only !== undefined && !nodes.has(Number(only))) return 8; // "node not found"
  for (const id of ids) {
    const port = CONSOLE_BASE_PORT + PORTS_PER_TENANT * tenant + id;
    if (action === 'start') {
      if (!(await runtime.startNode(port, nodes.get(id) ?? { name: `node${id}`, template: '' }))) return 12;
    } else if (action === 'stop' || action === 'wipe') {
      runtime.stopNode(port);
    }
    // `delete` only removes the node's runtime directory on a real server: a running node keeps running.
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`node-runtime: ${String(err)}\n`);
    process.exit(1);
  },
);
