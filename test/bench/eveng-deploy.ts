/**
 * Deploy of a 20-node lab through the agent on its EVE-NG backend, against
 * UNetLab's own API code under the harness (test/eveng/harness/; needs
 * UNETLAB_SRC, a git clone of dainok/unetlab, and refuses without it): how
 * many calls the agent makes to the server per lab object and how long the
 * deploy takes, against the floor: the very same calls (method, path, body,
 * in order, from the agent's `--record`) sent directly to a fresh harness by a
 * plain HTTP client. The figure's ratio is the agent's wall time over the floor's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '../../common/api/client';
import { startAgent } from '../../agent/server';
import { harnessUnavailable, startUnetlabHarness } from '../eveng/harness/unetlab-harness';
import { readRecording } from '../eveng/replay-server';
import { REDACTED } from '../../agent/emulator/eveng/recorder';
import { TEST_USER } from '../support/agent';
import { progress, report, runSection } from './support/report';
import { since } from './support/stats';

const NODES = 20;
const LANS = 4;
const ACCOUNT = { username: 'lab-agent-bench', password: 'bench-secret' };

/**
 * r1…r20 on four bridge networks (five routers each, on Gi0/0). Node-to-node links are left out:
 * the adapter of the first run hid their bridges with a PUT that UNetLab answers with a 500; the
 * full scenario's recording (test/eveng/recordings/unetlab) covers them.
 */
function lanLab(): { yaml: string; objects: number } {
  const lines = [
    'name: bench20',
    'defaults:',
    '  template: vios',
    '  image: vios-adventerprisek9-m.SPA.159-3.M6',
    'nodes:',
  ];
  for (let i = 1; i <= NODES; i++) lines.push(`  r${i}:`, `    position: { x: ${100 * i}, y: 100 }`);
  lines.push('networks:');
  for (let n = 1; n <= LANS; n++) lines.push(`  lan${n}:`, '    type: bridge');
  lines.push('links:');
  for (let i = 1; i <= NODES; i++) lines.push(`  - endpoints: [r${i}:Gi0/0, lan${1 + ((i - 1) % LANS)}]`);
  return { yaml: `${lines.join('\n')}\n`, objects: NODES + LANS + NODES };
}

/** Sends the recorded requests, in order, to `url`; returns the wall time and the time per kind of call. */
async function sendDirectly(url: string, recordDir: string): Promise<{ ms: number; byKind: Map<string, number> }> {
  let cookie = '';
  const byKind = new Map<string, number>();
  const start = performance.now();
  for (const { request } of readRecording(recordDir)) {
    let body = request.body as Record<string, unknown> | undefined;
    if (body && body.password === REDACTED) body = { ...body, password: ACCOUNT.password };
    const t0 = performance.now();
    const res = await fetch(url + request.path, {
      method: request.method,
      headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.text();
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0] ?? '';
    const kind = `${request.method} ${request.path
      .replace(/\/api\/labs\/.*?\.unl/, '/api/labs/…')
      .replace(/\/\d+/g, '/N')
      .replace(/templates\/.+/, 'templates/T')}`;
    byKind.set(kind, (byKind.get(kind) ?? 0) + since(t0));
  }
  return { ms: since(start), byKind };
}

async function main(): Promise<void> {
  const refusal = harnessUnavailable();
  if (refusal) throw new Error(`eveng-deploy needs UNetLab's source: ${refusal}`);
  const { yaml, objects } = lanLab();
  const work = mkdtempSync(join(tmpdir(), 'eveng-bench-'));
  const recordDir = join(work, 'record');
  try {
    let agentMs: number;
    const first = await startUnetlabHarness({ users: [ACCOUNT] });
    try {
      const agent = await startAgent({
        host: '127.0.0.1',
        port: 0,
        dataDir: join(work, 'agent'),
        emulator: 'eve-ng',
        eveNg: { url: first.url, ...ACCOUNT, allowHttp: true, recordDir },
      });
      const client = new AgentClient({ baseUrl: agent.url, pin: agent.fingerprint });
      try {
        await client.login(TEST_USER);
        progress(`deploying ${NODES} vIOS nodes (${objects} objects) through the agent`);
        const start = performance.now();
        const deployed = await client.deployProject({ yaml });
        agentMs = since(start);
        progress(`deployed ${deployed.nodes} nodes, ${deployed.links} links in ${(agentMs / 1000).toFixed(1)} s`);
      } finally {
        await client.close();
        await agent.close();
      }
    } finally {
      await first.close();
    }
    const exchanges = readRecording(recordDir);
    const liveness = exchanges.filter((e) => e.request.path === '/api/status' || e.request.path === '/api/auth').length;
    const catalogue = exchanges.filter((e) => e.request.path.startsWith('/api/list/templates/')).length;
    progress(`the same ${exchanges.length} calls sent directly to a fresh harness`);
    const fresh = await startUnetlabHarness({ users: [ACCOUNT] });
    let floor: Awaited<ReturnType<typeof sendDirectly>>;
    try {
      floor = await sendDirectly(fresh.url, recordDir);
    } finally {
      await fresh.close();
    }
    const slowest = [...floor.byKind.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
    report({
      name: `agent calls to EVE per lab object (deploy, ${NODES} nodes)`,
      value: exchanges.length / objects,
      unit: 'calls',
      note: `${exchanges.length} calls for ${objects} objects (${NODES} nodes, ${LANS} networks, ${NODES} links): ${liveness} liveness probes (GET /api/status or /api/auth), ${catalogue} template reads`,
    });
    report({
      name: `agent deploy wall time (${NODES} nodes, UNetLab harness)`,
      value: agentMs,
      unit: 'ms',
      baseline: { name: 'the same calls sent directly', value: floor.ms },
      note: `direct: slowest kinds ${slowest.map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`).join('; ')}`,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

runSection(main);
