/**
 * The steps both harnesses (unetlab-harness.ts, community-harness.ts) take
 * around their server, whatever it keeps its data in: install a home or serve
 * one an earlier harness installed, claim the accounts' pods, start the server,
 * and stop all of it once (close), with the server's error log in the message
 * when it does not start.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RuntimeCall } from './node-runtime';
import type { PhpServer } from './php-server';
import { claimAccountPods, type PodClaim } from './pod-claim';

export interface HarnessAccount {
  username: string;
  password: string;
  /**
   * The account's pod, as an admin sets it (`pod` of `POST /api/users`): a number, or 'free' for a
   * pod no other harness on this machine holds (pod-claim.ts), so that parallel harnesses never share
   * console ports. Default: none, and the server gives the first free one at the first login (pod 1
   * for the first account).
   */
  pod?: number | 'free';
}

export interface ServedHarness {
  url: string;
  /** The commit of the server's code it serves. */
  commit: string;
  /** What the PHP asked of the node runtime, in order. */
  runtimeCalls(): RuntimeCall[];
  /** The PHP's own error log (warnings, fatal errors). */
  phpErrors(): string;
  /** The lab files as the server wrote them (`/opt/unetlab/labs`). */
  labsDir: string;
  /**
   * From now on, someone else logs in with `username` right after each login of it (the server keeps
   * one session per user, so every session it gets ends at once): the router runs the server's own
   * `updateUserCookie`, as `apiLogin` does, after each successful `POST /api/auth/login` of the account.
   */
  stealSessionsOf(username: string): void;
  close(): Promise<void>;
}

export interface HomeSteps {
  /**
   * Where the server is installed. A directory an earlier harness installed is served again as it
   * stands, as a server restarted on its disk (after the earlier harness's close()); close() never
   * removes a home given here. Default: a new temporary directory named `<tempPrefix>…`.
   */
  home: string | undefined;
  tempPrefix: string;
  commit: string;
  users: HarnessAccount[];
  /** Console ports per pod of the server (pod-claim.ts). */
  portsPerPod: number;
  /** Installs the server in a new home. */
  lay(dir: string): void;
  /** Starts the server on the home; `pods` are the accounts' pods, `reused` whether the home was there. */
  serve(dir: string, pods: Map<string, number | undefined>, reused: boolean): Promise<{ php: PhpServer; url: string }>;
  /** What is done once the server answers, before the harness is handed out (the accounts added). */
  ready?(url: string, dir: string, pods: Map<string, number | undefined>, reused: boolean): Promise<void>;
  /** Stops what serve() started besides the PHP server (after it), whether or not serve() got that far. */
  stopMore?(): Promise<void>;
  /** More of what went wrong for the message of a failed start (another server's log). */
  moreLog?(): string;
}

/** Serves a harness home as `steps` say; what it started is stopped again when it fails to start. */
export async function serveHome(steps: HomeSteps): Promise<ServedHarness> {
  const dir = steps.home ?? mkdtempSync(join(tmpdir(), steps.tempPrefix));
  const reused = steps.home !== undefined && existsSync(join(dir, 'router.php'));
  let claims: PodClaim[] = [];
  let php: PhpServer | undefined;
  let closed: Promise<void> | undefined;
  // Stops everything this harness started and waits until it is gone, so that a harness started next
  // on the same home finds it free; a home given stays (its owner removes it).
  const close = () =>
    (closed ??= (async () => {
      await php?.stop();
      await steps.stopMore?.();
      await Promise.all(claims.map((c) => c.release()));
      if (steps.home === undefined) rmSync(dir, { recursive: true, force: true });
    })());
  try {
    if (!reused) {
      mkdirSync(dir, { recursive: true });
      steps.lay(dir);
    }
    const accounts = await claimAccountPods(dir, steps.users, reused, steps.portsPerPod);
    claims = accounts.claims;
    const served = await steps.serve(dir, accounts.pods, reused);
    php = served.php;
    await steps.ready?.(served.url, dir, accounts.pods, reused);
    const started = served.php;
    return {
      url: served.url,
      commit: steps.commit,
      labsDir: join(dir, 'opt', 'unetlab', 'labs'),
      runtimeCalls: (...args: Parameters<PhpServer['runtimeCalls']>) => started.runtimeCalls(...args),
      phpErrors: (...args: Parameters<PhpServer['phpErrors']>) => started.phpErrors(...args),
      stealSessionsOf: (...args: Parameters<PhpServer['stealSessionsOf']>) => started.stealSessionsOf(...args),
      close,
    };
  } catch (err) {
    const log = join(dir, 'php-errors.log');
    const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-3000) : '';
    const more = steps.moreLog?.() ?? '';
    await close();
    throw new Error(
      `${err instanceof Error ? err.message : String(err)}${tail ? `\nPHP error log:\n${tail}` : ''}${more}`,
      {
        cause: err,
      },
    );
  }
}

/**
 * The server's folders under `<dir>/opt/unetlab`, its `html/` exported from `ref` of the clone
 * `source`, and the images: an IOL `.bin` file or a qemu folder per template. Returns the folder.
 */
export function layServerCode(dir: string, source: string, ref: string, images: Record<string, string>): string {
  const base = join(dir, 'opt', 'unetlab');
  for (const d of [
    'labs',
    'tmp',
    'data/Logs',
    'data/Exports',
    'addons/qemu',
    'addons/iol/bin',
    'addons/dynamips',
    'wrappers',
  ])
    mkdirSync(join(base, d), { recursive: true });
  const archive = spawnSync('git', ['-C', source, 'archive', '--format=tar', ref, 'html'], {
    maxBuffer: 512 * 1024 * 1024,
  });
  if (archive.status !== 0) throw new Error(`git archive ${ref} html: ${archive.stderr.toString()}`);
  const untar = spawnSync('tar', ['-x', '-C', base], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString()}`);
  for (const [template, image] of Object.entries(images)) {
    if (template.startsWith('iol')) writeFileSync(join(base, 'addons/iol/bin', image), '');
    else mkdirSync(join(base, 'addons/qemu', image), { recursive: true });
  }
  return base;
}
