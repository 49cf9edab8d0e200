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
import { createServer, type Server } from 'node:net';

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

/**
 * A pod no other claim holds, tried from a random one so that parallel claims rarely race.
 * `portsPerPod`: UNetLab gives a pod 128 console ports, EVE-NG 6.2 256 (a 6.2 pod spans two UNetLab
 * pods' ranges: its claim holds the first of them; the second's node-0 port is its node 128).
 */
export async function claimPod(portsPerPod = 128): Promise<PodClaim> {
  // The last pod whose ports fit below 65536 (the server's own limit, `configureUserPod`).
  const LAST_POD = Math.floor((65536 - CONSOLE_BASE_PORT) / portsPerPod) - 1;
  const span = LAST_POD - FIRST_CLAIMABLE + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const pod = FIRST_CLAIMABLE + ((start + i) % span);
    const server = await hold(CONSOLE_BASE_PORT + portsPerPod * pod);
    if (server) {
      server.unref();
      return { pod, release: () => new Promise<void>((r) => server.close(() => r())) };
    }
  }
  throw new Error(`no free pod between ${FIRST_CLAIMABLE} and ${LAST_POD}: every console port range is held`);
}
