/**
 * Deploy throughput of the reference agent against its simulated emulator
 * (3 ms per emulator write, as `node dist/agent.js` runs it): the time to deploy
 * a 2,000-node generated lab, per 1,000 objects (nodes, networks and links),
 * against the same figure for a 200-node lab deployed in the same run. A ratio
 * near 1 means deploy time grows linearly with the lab.
 */
import type { AgentClient } from '../../common/api/client';
import { startAgentProcess } from './support/agent-process';
import { fitToAgent, generatedProject } from './support/labs';
import { progress, report, runSection } from './support/report';
import { since } from './support/stats';

const SMALL = 200;
const LARGE = 2000;

/** Deploys a generated lab of `nodes` nodes; returns ms per 1,000 objects, the object count and the plan's time. */
async function deploy(
  client: AgentClient,
  nodes: number,
): Promise<{ perThousand: number; objects: number; ms: number; planMs: number }> {
  const { yaml, files } = await fitToAgent(generatedProject(nodes), client);
  const planStart = performance.now();
  const plan = await client.planProject({ yaml, files });
  const planMs = since(planStart);
  const objects = plan.summary?.create ?? NaN;
  progress(`deploying ${nodes} nodes (${objects} objects)`);
  const start = performance.now();
  await client.deployProject({ yaml, files });
  const ms = since(start);
  return { perThousand: (ms / objects) * 1000, objects, ms, planMs };
}

async function main(): Promise<void> {
  const agent = await startAgentProcess();
  const client = await agent.loggedIn();
  try {
    const small = await deploy(client, SMALL);
    const large = await deploy(client, LARGE);
    report({
      name: `agent deploy per 1,000 objects (${LARGE} nodes)`,
      value: large.perThousand,
      unit: 'ms',
      baseline: { name: `${SMALL}-node deploy`, value: small.perThousand },
      targets: [{ on: 'ratio', op: '<=', limit: 1.5 }],
      note: `${large.objects} objects in ${(large.ms / 1000).toFixed(1)} s; the simulated emulator takes 8 writes at once, 3 ms each`,
    });
    report({
      name: `agent plan of the same lab (${LARGE} nodes)`,
      value: large.planMs,
      unit: 'ms',
    });
  } finally {
    await client.close();
    await agent.stop();
  }
}

runSection(main);
