/**
 * Per-call overhead of the typed API client (common/api) against a bare undici
 * request to the same agent endpoint: the same keep-alive Pool options and TLS
 * connector (pinned certificate), the same headers and body, and the reply
 * body read and JSON-parsed, as any caller must. The two take turns in rounds
 * (order alternating) so that machine noise hits both; the figure is the
 * median of the per-round ratios of total time.
 */
import { Pool } from 'undici';
import { OPERATIONS } from '../../common/api/contract';
import { createTlsConnector, normalizeFingerprint } from '../../common/api/tls';
import { startAgentProcess } from './support/agent-process';
import { fitToAgent, generatedProject } from './support/labs';
import { progress, report, runSection } from './support/report';
import { median } from './support/stats';

const ROUNDS = 60;
const CALLS_PER_ROUND = 20;
const WARMUP_CALLS = 200;
const BASELINE = 'bare undici request';

async function main(): Promise<void> {
  const agent = await startAgentProcess();
  const client = await agent.loggedIn();
  const pool = new Pool(agent.url, {
    connect: createTlsConnector({ pin: normalizeFingerprint(agent.fingerprint) }),
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  try {
    // A deployed 50-node lab, so that status describes 50 nodes.
    const { yaml, files } = await fitToAgent(generatedProject(50), client);
    const deployed = await client.deployProject({ yaml, files });
    const statusPayload = { yaml, files, state: deployed.state };
    const auth = { accept: 'application/json', authorization: `Bearer ${client.token}` };

    const cases = [
      {
        name: 'getHealth',
        viaClient: () => client.getHealth(),
        bare: async () => {
          const { body } = await pool.request({
            method: 'GET',
            path: OPERATIONS.getHealth.path,
            headers: { accept: 'application/json' },
          });
          return JSON.parse(await body.text());
        },
      },
      {
        name: 'getProjectStatus (50 nodes)',
        viaClient: () => client.getProjectStatus(statusPayload),
        bare: async () => {
          const { body } = await pool.request({
            method: 'POST',
            path: OPERATIONS.getProjectStatus.path,
            headers: { ...auth, 'content-type': 'application/json' },
            // Serialized per call, as any caller must.
            body: JSON.stringify(statusPayload),
          });
          return JSON.parse(await body.text());
        },
      },
    ];

    for (const c of cases) {
      progress(`api client: ${c.name}`);
      for (let i = 0; i < WARMUP_CALLS; i++) {
        await c.viaClient();
        await c.bare();
      }
      const ratios: number[] = [];
      const perCall = { client: [] as number[], bare: [] as number[], overhead: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        const time = async (call: () => Promise<unknown>): Promise<number> => {
          const start = performance.now();
          for (let i = 0; i < CALLS_PER_ROUND; i++) await call();
          return performance.now() - start;
        };
        let clientMs: number;
        let bareMs: number;
        if (round % 2 === 0) {
          clientMs = await time(c.viaClient);
          bareMs = await time(c.bare);
        } else {
          bareMs = await time(c.bare);
          clientMs = await time(c.viaClient);
        }
        ratios.push(clientMs / bareMs);
        perCall.client.push((clientMs / CALLS_PER_ROUND) * 1000);
        perCall.bare.push((bareMs / CALLS_PER_ROUND) * 1000);
        perCall.overhead.push(((clientMs - bareMs) / CALLS_PER_ROUND) * 1000);
      }
      const clientUs = median(perCall.client);
      const bareUs = median(perCall.bare);
      report({
        name: `api client per call, ${c.name}`,
        value: clientUs,
        unit: 'µs',
        baseline: { name: BASELINE, value: bareUs },
        ratio: median(ratios),
        targets: [{ on: 'ratio', op: '<=', limit: 1.1 }],
        note: `median of ${ROUNDS} per-round ratios, ${CALLS_PER_ROUND} sequential calls per side per round; median difference ${Math.round(median(perCall.overhead))} µs a call`,
      });
    }
  } finally {
    await client.close();
    await pool.close();
    await agent.stop();
  }
}

runSection(main);
