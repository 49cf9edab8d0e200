/**
 * The exchange scenario behind the shipped recording: what a user does in the
 * extension (catalogue, plan, deploy, start, inspect, destroy), through the
 * agent on its EVE-NG backend. make-recording.ts records it against the fake
 * server; replay.test.ts plays it again against the recording. It waits for
 * nothing, so it makes the same EVE-NG calls every time.
 */
import { AgentClient } from '../../common/api/client';
import { startAgent, type RunningAgent } from '../../agent/server';
import { labYaml, TEST_USER } from '../support/agent';

export const RECORDING_ACCOUNT = { username: 'lab-agent-svc', password: 'recorded-secret-pw' };

export interface ScenarioOutcome {
  templates: number;
  provisioned: string[];
  viosImages: string[];
  networkTypes: string[];
  icons: string[];
  deployed: { lab?: string; nodes?: number; links?: number };
  started?: number;
  inspected: string[];
  destroyed?: string;
}

/** An agent on the EVE-NG backend in front of `url` (plain http, as Community serves it). */
export function scenarioAgent(dataDir: string, url: string, recordDir?: string): Promise<RunningAgent> {
  return startAgent({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    emulator: 'eve-ng',
    eveNg: { url, ...RECORDING_ACCOUNT, allowHttp: true, ...(recordDir ? { recordDir } : {}) },
  });
}

export async function runScenario(agent: RunningAgent): Promise<ScenarioOutcome> {
  const client = new AgentClient({ baseUrl: agent.url, pin: agent.fingerprint });
  try {
    await client.login(TEST_USER);
    const templates = (await client.listTemplates()).templates ?? [];
    const vios = await client.getTemplate({ id: 'vios' });
    const types = (await client.listNetworkTypes()).types ?? [];
    const icons = (await client.listIcons()).icons ?? [];
    const yaml = labYaml('recorded');
    const plan = await client.planProject({ yaml });
    const deployed = await client.deployProject({ yaml, plan_identity: plan.plan_identity });
    const started = await client.execProject({ yaml, state: deployed.state, action: 'start' });
    const inspected = await client.inspectProject({ lab: deployed.lab, refresh: true });
    const destroyed = await client.destroyProject({ yaml, state: deployed.state });
    await client.logout();
    return {
      templates: templates.length,
      provisioned: templates
        .filter((t) => t.provisioned)
        .map((t) => t.id ?? '')
        .sort(),
      viosImages: (vios.images ?? []).map((i) => i.id ?? ''),
      networkTypes: types.map((t) => t.id ?? ''),
      icons: icons.map((i) => i.id ?? ''),
      deployed: { lab: deployed.lab, nodes: deployed.nodes, links: deployed.links },
      started: started.started,
      inspected: (inspected.nodes ?? []).map((n) => n.name ?? '').sort(),
      destroyed: destroyed.status,
    };
  } finally {
    await client.close();
  }
}
