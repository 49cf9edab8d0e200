/**
 * The refresh budget is per lab shown, not per agent (#32): requests per minute
 * of an idle extension whose Labs and Consoles views show 3 agents × 10 labs,
 * against 1 agent × 30 labs. Real agents (the reference agent, simulated
 * emulator) over HTTPS on 127.0.0.1, real requests, ten minutes on a simulated
 * clock (support/idle-views.ts). Each view has one loop over every lab it shows,
 * whatever the agent, so the views' loads are the same; each agent's session has
 * its own heartbeat, the one request an agent adds (it keeps that agent's state true).
 */
import type { AgentClient } from '../../common/api/client';
import { HEARTBEAT_MS } from '../../client/connection/session-machine';
import { intervalMsOf } from '../../client/model/refresh-pacer';
import { startAgentProcess, type AgentProcess } from './support/agent-process';
import { simulateIdleViews, type ShownLab } from './support/idle-views';
import { fitToAgent, generatedProject } from './support/labs';
import { progress, report, runSection } from './support/report';

const LABS = 30;
const AGENTS = 3;
const NODES_PER_LAB = 4;
const MINUTES = 10;
const INTERVAL_MS = intervalMsOf(undefined);
/** The most heartbeats an idle connected session sends per minute. */
const HEARTBEATS_PER_MINUTE = 60_000 / HEARTBEAT_MS;

async function deployLabs(client: AgentClient, count: number, prefix: string): Promise<ShownLab[]> {
  const labs: ShownLab[] = [];
  for (let i = 0; i < count; i++) {
    const { yaml, files } = await fitToAgent(generatedProject(NODES_PER_LAB), client);
    const deployed = await client.deployProject({
      yaml: yaml.replace(/^name: .*$/m, `name: ${prefix}-${i + 1}`),
      files,
    });
    if (typeof deployed.lab !== 'string') throw new Error(`lab ${prefix}-${i + 1} did not deploy`);
    labs.push({ client, payload: { lab: deployed.lab } });
  }
  return labs;
}

async function main(): Promise<void> {
  const agents: AgentProcess[] = [];
  const clients: AgentClient[] = [];
  try {
    for (let i = 0; i < AGENTS; i++) {
      // More labs than one user may have by default (16).
      agents.push(await startAgentProcess({ args: ['--max-labs-per-user', String(LABS)] }));
      clients.push(await agents[i].loggedIn());
    }
    const [first, ...others] = clients;
    // One agent with every lab; the same first ten of them, and ten on each other agent, for the spread.
    const alone = await deployLabs(first, LABS, 'alone');
    const perAgent = LABS / AGENTS;
    const spread = [...alone.slice(0, perAgent)];
    for (const [i, client] of others.entries()) spread.push(...(await deployLabs(client, perAgent, `spread-${i + 2}`)));
    progress(
      `${LABS} labs of ${NODES_PER_LAB} nodes on 1 agent, and ${AGENTS} × ${perAgent}; ${MINUTES} idle minutes each`,
    );
    const options = { minutes: MINUTES, intervalMs: INTERVAL_MS, paced: true };
    const one = await simulateIdleViews(alone, options);
    const three = await simulateIdleViews(spread, options);
    const shares = clients.map((c) => three.perAgent.get(c) ?? 0).map((n) => (n / MINUTES).toFixed(1));
    progress(`1 × ${LABS}: ${one.labData} view loads, ${one.heartbeats} heartbeats`);
    progress(
      `${AGENTS} × ${perAgent}: ${three.labData} view loads, ${three.heartbeats} heartbeats; per agent ${shares.join(', ')} req/min`,
    );
    report({
      name: `view loads per minute, ${AGENTS} agents × ${perAgent} idle labs`,
      value: three.labData / MINUTES,
      unit: 'req/min',
      baseline: { name: `1 agent × ${LABS} idle labs`, value: one.labData / MINUTES },
      targets: [{ on: 'ratio', op: '<=', limit: 1 }],
      note: `Labs and Consoles views, one paced loop each over every lab shown (interval ${INTERVAL_MS / 1000} s, back-off to 6×).`,
    });
    report({
      name: `all requests per minute, ${AGENTS} agents × ${perAgent} idle labs`,
      value: (three.labData + three.heartbeats) / MINUTES,
      unit: 'req/min',
      baseline: { name: `1 agent × ${LABS} idle labs`, value: (one.labData + one.heartbeats) / MINUTES },
      targets: [
        // No more than the views' budget and each further agent's own heartbeat.
        {
          on: 'value',
          op: '<=',
          limit: (one.labData + one.heartbeats) / MINUTES + (AGENTS - 1) * HEARTBEATS_PER_MINUTE,
        },
      ],
      note: `With each session's heartbeat (getCapabilities after ${HEARTBEAT_MS / 1000} s without a call to that agent).`,
    });
  } finally {
    for (const client of clients) await client.close();
    for (const agent of agents) await agent.stop();
  }
}

runSection(main);
