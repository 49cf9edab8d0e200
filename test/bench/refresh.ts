/**
 * Requests the agent receives per minute from an idle extension with five labs
 * visible: the Labs view (getProjectStatus per lab) and the Consoles view
 * (listProjectConsoles per lab), each loading at the pace client/model/refresh-pacer.ts
 * decides, plus the session's heartbeat (getCapabilities when no call spoke with
 * the agent lately). Ten minutes run on a simulated clock, so the section stays
 * short, while every load is real: real requests to a real agent, counted as
 * the client sends them, and what they return decides "nothing changed".
 * Baseline: the same views polling at the configured interval without back-off.
 */
import { intervalMsOf } from '../../client/model/refresh-pacer';
import { startAgentProcess } from './support/agent-process';
import { simulateIdleViews } from './support/idle-views';
import { fitToAgent, generatedProject } from './support/labs';
import { progress, report, runSection } from './support/report';
import { HEARTBEAT_MS } from '../../client/connection/session-machine';

const LABS = 5;
const NODES_PER_LAB = 6;
const MINUTES = 10;
const INTERVAL_MS = intervalMsOf(undefined);

async function main(): Promise<void> {
  const agent = await startAgentProcess();
  const client = await agent.loggedIn();
  try {
    const payloads: { lab: string }[] = [];
    for (let i = 0; i < LABS; i++) {
      const { yaml, files } = await fitToAgent(generatedProject(NODES_PER_LAB), client);
      const named = yaml.replace(/^name: .*$/m, `name: refresh-bench-${i + 1}`);
      const deployed = await client.deployProject({ yaml: named, files });
      if (typeof deployed.lab !== 'string') throw new Error(`lab ${i + 1} did not deploy`);
      payloads.push({ lab: deployed.lab });
    }
    progress(`${LABS} labs of ${NODES_PER_LAB} nodes deployed; simulating ${MINUTES} idle minutes`);
    const labs = payloads.map((payload) => ({ client, payload }));
    const total = async (paced: boolean): Promise<number> => {
      const counted = await simulateIdleViews(labs, { minutes: MINUTES, intervalMs: INTERVAL_MS, paced });
      return counted.labData + counted.heartbeats;
    };
    const baseline = await total(false);
    const paced = await total(true);
    report({
      name: `agent requests per minute, ${LABS} labs visible and idle`,
      value: paced / MINUTES,
      unit: 'req/min',
      baseline: { name: `polling every ${INTERVAL_MS / 1000} s`, value: baseline / MINUTES },
      targets: [
        { on: 'ratio', op: '<=', limit: 0.5 },
        { on: 'value', op: '<=', limit: 30 },
      ],
      note: `Labs and Consoles views with the default interval (${INTERVAL_MS / 1000} s), back-off to 6×, heartbeat every ${HEARTBEAT_MS / 1000} s when idle; ${MINUTES} simulated minutes, real requests.`,
    });
  } finally {
    await client.close();
    await agent.stop();
  }
}

runSection(main);
