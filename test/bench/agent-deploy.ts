/**
 * Deploy throughput of the reference agent against its simulated emulator
 * (3 ms per emulator write, as `node dist/agent.js` runs it), and how the cost
 * of a lab grows with it, all in one run:
 * - deploy time per 1,000 objects (nodes, networks and links) of a 2,000-node
 *   generated lab against a 200-node one (near 1: linear);
 * - validate, plan and deploy of the 10,000-node lab against the 2,000-node one
 *   (target ≤ 6× for 5× the nodes: cost may not grow much faster than the lab);
 * - the warm plan of the 2,000-node lab (the same document planned again)
 *   against the floor: the same plan computed in this process, from a warm
 *   document cache, without the agent's HTTP and worker hand-off.
 */
import type { AgentClient } from '../../common/api/client';
import { catalogueOf } from '../../agent/domain/catalogue';
import { DocumentCache } from '../../agent/domain/document-cache';
import { planDocument } from '../../agent/domain/plan-document';
import { readProjectInput } from '../../agent/http/project-payload';
import { ICONS, NETWORK_TYPES, TEMPLATES } from '../../agent/emulator/simulated/catalogue';
import { startAgentProcess } from './support/agent-process';
import { fitToAgent, generatedProject, type GeneratedProject } from './support/labs';
import { progress, report, runSection } from './support/report';
import { median, since } from './support/stats';

const SMALL = 200;
const LARGE = 2000;
const HUGE = 10_000;
const WARM_SAMPLES = 5;
const TIMEOUT_MS = 600_000;

interface Costs {
  project: GeneratedProject;
  objects: number;
  validateMs: number;
  planMs: number;
  deployMs: number;
  perThousand: number;
}

/** Validates, plans and deploys a generated lab of `nodes` nodes, each timed once (cold: a new document). */
async function costs(client: AgentClient, nodes: number): Promise<Costs> {
  const project = await fitToAgent(generatedProject(nodes), client);
  progress(`validating, planning and deploying ${nodes} nodes (${Math.round(project.yaml.length / 1024)} KiB)`);
  let start = performance.now();
  const validated = await client.validateProject(project, { timeoutMs: TIMEOUT_MS });
  const validateMs = since(start);
  if (validated.status !== 'valid') throw new Error(`the ${nodes}-node lab does not validate`);
  start = performance.now();
  const plan = await client.planProject(project, { timeoutMs: TIMEOUT_MS });
  const planMs = since(start);
  const objects = plan.summary?.create ?? NaN;
  start = performance.now();
  await client.deployProject(project, { timeoutMs: TIMEOUT_MS });
  const deployMs = since(start);
  return { project, objects, validateMs, planMs, deployMs, perThousand: (deployMs / objects) * 1000 };
}

/** The plan of the project computed here: warm document cache, no HTTP, no worker. The median of WARM_SAMPLES. */
async function floorPlanMs(project: GeneratedProject): Promise<number> {
  const catalogue = catalogueOf({ templates: [...TEMPLATES], icons: [...ICONS], networkTypes: [...NETWORK_TYPES] });
  const documents = new DocumentCache();
  const body = JSON.stringify({ ...project, lab: '/bench/floor.unl' });
  const times: number[] = [];
  for (let i = 0; i <= WARM_SAMPLES; i++) {
    const start = performance.now();
    const { plan } = await planDocument({
      input: readProjectInput(JSON.parse(body) as Record<string, unknown>),
      direction: 'to_emu',
      catalogue,
      parse: (yaml) => documents.parse(yaml),
      observe: () => Promise.resolve({ live: undefined, midApply: false }),
    });
    JSON.stringify(plan);
    // The first one parses: warm ones follow.
    if (i > 0) times.push(since(start));
  }
  return median(times);
}

async function warmPlanMs(client: AgentClient, project: GeneratedProject): Promise<number> {
  // A lab that does not exist: the same plan as the floor's.
  const payload = { ...project, lab: '/bench/warm.unl' };
  const times: number[] = [];
  for (let i = 0; i <= WARM_SAMPLES; i++) {
    const start = performance.now();
    await client.planProject(payload, { timeoutMs: TIMEOUT_MS });
    if (i > 0) times.push(since(start));
  }
  return median(times);
}

async function main(): Promise<void> {
  const agent = await startAgentProcess();
  const client = await agent.loggedIn();
  try {
    const small = await costs(client, SMALL);
    const large = await costs(client, LARGE);
    const huge = await costs(client, HUGE);
    report({
      name: `agent deploy per 1,000 objects (${LARGE} nodes)`,
      value: large.perThousand,
      unit: 'ms',
      baseline: { name: `${SMALL}-node deploy`, value: small.perThousand },
      targets: [{ on: 'ratio', op: '<=', limit: 1.5 }],
      note: `${large.objects} objects in ${(large.deployMs / 1000).toFixed(1)} s; the simulated emulator takes 8 writes at once, 3 ms each`,
    });
    for (const [what, key] of [
      ['validate', 'validateMs'],
      ['plan', 'planMs'],
      ['deploy', 'deployMs'],
    ] as const) {
      report({
        name: `agent ${what} of the ${HUGE}-node lab`,
        value: huge[key],
        unit: 'ms',
        baseline: { name: `${LARGE}-node ${what}`, value: large[key] },
        targets: [{ on: 'ratio', op: '<=', limit: 6 }],
        note: `5× the nodes (${Math.round(huge.project.yaml.length / 1024)} KiB against ${Math.round(large.project.yaml.length / 1024)} KiB); a new document each time`,
      });
    }
    const floor = await floorPlanMs(large.project);
    const warm = await warmPlanMs(client, large.project);
    report({
      name: `agent warm plan (${LARGE} nodes, the same document again)`,
      value: warm,
      unit: 'ms',
      baseline: { name: 'the same plan in process (no HTTP, no worker)', value: floor },
      note: `median of ${WARM_SAMPLES}; the difference is the agent's HTTP, JSON and worker hand-off`,
    });
  } finally {
    await client.close();
    await agent.stop();
  }
}

runSection(main);
