/**
 * Joins a TCP port and a unix socket, both ways, for the EVE-NG Community
 * harness: its PHP runs in a network namespace of its own (EVE-NG's code
 * connects to MariaDB at 127.0.0.1:3306, a port the harness may not take on
 * the machine), and a unix socket in the harness's directory is the one door
 * between that namespace and the machine's loopback.
 *
 *   node socket-bridge.js tcp:127.0.0.1:3306 unix:/tmp/…/mysqld.sock   (listen on the first, connect to the second)
 *
 * The harness's own side, the machine's 127.0.0.1:PORT to the PHP's socket, is one more of these,
 * run in the machine's network namespace (nsenter).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

type End = { port: number; host: string } | { path: string };

function parse(spec: string): End {
  if (spec.startsWith('unix:')) return { path: spec.slice(5) };
  const m = /^tcp:([^:]+):(\d+)$/.exec(spec);
  if (!m) throw new Error(`not tcp:HOST:PORT or unix:PATH: ${spec}`);
  return { host: m[1], port: Number(m[2]) };
}

/** Serves `listen`, piping each connection to a new connection to `target`. */
function bridge(listen: End, target: End): Promise<Server> {
  const server = createServer((client: Socket) => {
    const upstream = connect(target);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen, () => resolve(server));
  });
}

if (require.main === module) {
  const [listen, target] = process.argv.slice(2);
  if (!listen || !target) {
    process.stderr.write('usage: node socket-bridge.js LISTEN TARGET (tcp:HOST:PORT or unix:PATH)\n');
    process.exit(2);
  }
  bridge(parse(listen), parse(target)).catch((err: unknown) => {
    process.stderr.write(`socket-bridge: ${String(err)}\n`);
    process.exit(1);
  });
}
