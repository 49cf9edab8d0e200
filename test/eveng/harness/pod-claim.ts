/**
 * Pods for harness accounts that no other harness on this machine uses. A
 * node's console port is 32768 + 128 × pod + node id on the whole machine
 * (html/includes/__node.php), so two harnesses whose accounts got the same pod
 * (every fresh server gives its first ordinary user pod 1) answer each other's
 * consoles and call each other's nodes running (EVE-NG 6.2: 256 × pod). A claim listens on the port of
 * node id 0 of the pod, which the server never gives a node (ids start at 1),
 * until it is released: a port held is a pod taken, machine-wide and across
 * processes, and it is freed when the holder exits, however it ends.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

const CONSOLE_BASE_PORT = 32768;
/** Pod 0 is the server's admin, pod 1 the first account of a server that assigns pods itself. */
const FIRST_CLAIMABLE = 2;

export interface PodClaim {
  pod: number;
  release(): Promise<void>;
}

function hold(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

function claimed(pod: number, server: Server): PodClaim {
  server.unref();
  return { pod, release: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * A pod no other claim holds, tried from a random one so that parallel claims rarely race.
 * `portsPerPod`: UNetLab gives a pod 128 console ports, EVE-NG 6.2 256 (a 6.2 pod spans two UNetLab
 * pods' ranges: its claim holds the first of them; the second's node-0 port is its node 128).
 * `wanted`: that pod only (a harness restarted on its home, whose account keeps the pod it had),
 * refused when another harness holds it.
 */
async function claimPod(portsPerPod = 128, wanted?: number): Promise<PodClaim> {
  if (wanted !== undefined) {
    const server = await hold(CONSOLE_BASE_PORT + portsPerPod * wanted);
    if (!server) throw new Error(`pod ${wanted}, this harness home's, is held by another harness on this machine`);
    return claimed(wanted, server);
  }
  // The last pod whose ports fit below 65536 (the server's own limit, `configureUserPod`).
  const LAST_POD = Math.floor((65536 - CONSOLE_BASE_PORT) / portsPerPod) - 1;
  const span = LAST_POD - FIRST_CLAIMABLE + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const pod = FIRST_CLAIMABLE + ((start + i) % span);
    const server = await hold(CONSOLE_BASE_PORT + portsPerPod * pod);
    if (server) return claimed(pod, server);
  }
  throw new Error(`no free pod between ${FIRST_CLAIMABLE} and ${LAST_POD}: every console port range is held`);
}

/** Where a harness home keeps the pods its accounts were given by claims (username → pod). */
const CLAIMED_FILE = 'claimed-pods.json';

/**
 * The pods of a harness's accounts: for a new home, each `pod: 'free'` account gets a claimed pod
 * (kept in the home); a home served again claims the same pods again, since its accounts keep them.
 * Returns the pod per username (undefined: the server assigns one) and the claims to release on close.
 */
export async function claimAccountPods(
  home: string,
  users: { username: string; pod?: number | 'free' }[],
  reused: boolean,
  portsPerPod: number,
): Promise<{ pods: Map<string, number | undefined>; claims: PodClaim[] }> {
  const file = join(home, CLAIMED_FILE);
  const claims: PodClaim[] = [];
  const pods = new Map<string, number | undefined>();
  try {
    if (reused) {
      const kept = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>) : {};
      for (const pod of Object.values(kept)) claims.push(await claimPod(portsPerPod, pod));
      return { pods, claims };
    }
    for (const user of users) {
      if (user.pod !== 'free') pods.set(user.username, user.pod);
      else {
        const claim = await claimPod(portsPerPod);
        claims.push(claim);
        pods.set(user.username, claim.pod);
      }
    }
    const kept = Object.fromEntries(
      users.filter((u) => u.pod === 'free').map((u) => [u.username, pods.get(u.username)]),
    );
    writeFileSync(file, JSON.stringify(kept));
    return { pods, claims };
  } catch (err) {
    await Promise.all(claims.map((c) => c.release()));
    throw err;
  }
}
