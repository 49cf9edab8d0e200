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

/** The lab of the full scenario: vIOS, IOL and Linux nodes, a network, node-to-node links, configs. */
export function fullLabYaml(name: string, edits: { r2Ram?: number; vmx?: boolean } = {}): string {
  return [
    `name: ${name}`,
    'description: vIOS, IOL and Linux against the real server code',
    'nodes:',
    '  r1:',
    '    template: vios',
    '    image: vios-adventerprisek9-m.SPA.159-3.M6',
    '    config: configs/r1.cfg',
    '    position: { x: 100, y: 100 }',
    '  r2:',
    '    template: vios',
    '    image: vios-adventerprisek9-m.SPA.159-3.M6',
    ...(edits.r2Ram ? [`    ram: ${edits.r2Ram}`] : []),
    '    position: { x: 300, y: 100 }',
    '  sw1:',
    '    template: iol',
    '    image: i86bi-linux-l3-adventerprisek9-15.4.1T.bin',
    '    ethernet: 8',
    '    config: configs/sw1.cfg',
    '    position: { x: 200, y: 300 }',
    '  h1:',
    '    template: linux',
    '    image: linux-debian-12',
    '    position: { x: 400, y: 300 }',
    ...(edits.vmx
      ? ['  vmx1:', '    template: vmx', '    image: vmx-14.1R1.10', '    position: { x: 500, y: 100 }']
      : []),
    'networks:',
    '  mgmt:',
    '    type: bridge',
    'links:',
    '  - endpoints: [r1:Gi0/0, r2:Gi0/0]',
    '  - endpoints: [r1:Gi0/1, sw1:e0/1]',
    '  - endpoints: [sw1:e1/0, h1:e0]',
    '  - endpoints: [r2:Gi0/1, mgmt]',
    ...(edits.vmx ? ['  - endpoints: [r2:Gi0/2, vmx1:ge-0/0/1]'] : []),
    '',
  ].join('\n');
}

export const FULL_LAB_FILES = {
  'configs/r1.cfg': 'hostname r1\ninterface Gi0/0\n ip address 10.0.12.1 255.255.255.0\n',
  'configs/sw1.cfg': 'hostname sw1\ninterface e0/1\n no switchport\n',
};

const LAB_A = '/lab-agent/scen-a.unl';
const LAB_B = '/lab-agent/scen-b.unl';

/** The small second lab: same node ids as the first one's first two nodes. */
function otherLabYaml(name: string): string {
  return [
    `name: ${name}`,
    'nodes:',
    '  b1:',
    '    template: vios',
    '    image: vios-adventerprisek9-m.SPA.159-3.M6',
    '  b2:',
    '    template: vios',
    '    image: vios-adventerprisek9-m.SPA.159-3.M6',
    'links:',
    '  - endpoints: [b1:Gi0/0, b2:Gi0/0]',
    '',
  ].join('\n');
}

type Step = { step: string; ok: boolean; result?: unknown; error?: string };

/**
 * The full scenario's agent clock: still within a step, 1 ms later at each step. The agent's timed
 * caches (the catalogue's: 5 s when templates are broken, as on UNetLab) then never expire during
 * the run, whether it takes minutes against the server or a second against its recording: the
 * catalogue is read once, and the recording replays exchange for exchange.
 */
export class StepClock {
  private at = Date.now();
  readonly now = (): number => this.at;
  step(): void {
    this.at += 1;
  }
}

/** An agent for runFullScenario, on `clock`. */
export function fullScenarioAgent(dataDir: string, url: string, clock: StepClock, recordDir?: string) {
  return startAgent({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    clock: clock.now,
    emulator: 'eve-ng',
    eveNg: { url, ...RECORDING_ACCOUNT, allowHttp: true, ...(recordDir ? { recordDir } : {}) },
  });
}

/**
 * The scenario of issue 26 against a real server's code: every step is run and its outcome kept
 * (a failing step does not stop the next ones), so the recording and the outcome show what the
 * adapter does and where the server refuses it. `vmx` adds a vMX node linked on ge-0/0/1 (EVE-NG
 * Community has vMX templates; UNetLab does not); `r2Ram` is the one-field edit (default 1024 MB,
 * a change from UNetLab's vIOS template; 6.2's vIOS template already has 1024).
 */
export async function runFullScenario(
  agent: RunningAgent,
  clock: StepClock,
  options: { vmx?: boolean; r2Ram?: number } = {},
): Promise<Step[]> {
  const client = new AgentClient({ baseUrl: agent.url, pin: agent.fingerprint });
  const steps: Step[] = [];
  const run = async <T>(step: string, call: () => Promise<T>, keep: (r: T) => unknown = (r) => r) => {
    clock.step();
    try {
      const result = await call();
      steps.push({ step, ok: true, result: keep(result) });
      return result;
    } catch (err) {
      steps.push({ step, ok: false, error: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  };
  const planSummary = (p: {
    summary?: unknown;
    actions?: { op?: string; kind?: string; name?: string; fields?: string[] }[];
  }) => ({
    summary: p.summary,
    actions: (p.actions ?? []).map(
      (a) => `${a.op} ${a.kind} ${a.name}${a.fields?.length ? ` (${a.fields.join(',')})` : ''}`,
    ),
  });
  const nodeStates = (i: { nodes?: { name?: string; state?: string; console?: string }[] }) =>
    (i.nodes ?? []).map((n) => `${n.name}:${n.state}`).sort();
  try {
    await client.login(TEST_USER);
    await run(
      'templates',
      () => client.listTemplates(),
      (r) =>
        (r.templates ?? [])
          .filter((t) => t.provisioned)
          .map((t) => t.id)
          .sort(),
    );
    const files = FULL_LAB_FILES;
    const a = fullLabYaml('scen-a', { vmx: options.vmx });
    const planA = await run('plan A', () => client.planProject({ yaml: a, files }), planSummary);
    const deployA = await run(
      'deploy A',
      () => client.deployProject({ yaml: a, files, plan_identity: planA?.plan_identity }),
      (r) => ({ lab: r.lab, nodes: r.nodes, links: r.links }),
    );
    await run('plan A after deploy', () => client.planProject({ yaml: a, files, state: deployA?.state }), planSummary);
    await run(
      'start A',
      () => client.execProject({ yaml: a, state: deployA?.state, action: 'start' }),
      (r) => r.started,
    );
    await run(
      'inspect A',
      () => client.inspectProject({ lab: LAB_A, refresh: true }),
      (r) => (r.nodes ?? []).map((n) => `${n.name}:${n.state}:${n.console ?? ''}`).sort(),
    );
    await run(
      'from_emu A',
      () => client.reconcileProject({ yaml: a, files, state: deployA?.state, direction: 'from_emu' }),
      (r) => ({ ...planSummary(r), yaml: r.yaml, files: r.files }),
    );
    const edited = fullLabYaml('scen-a', { r2Ram: options.r2Ram ?? 1024, vmx: options.vmx });
    const planEdit = await run(
      'plan one-field edit',
      () => client.planProject({ yaml: edited, files, state: deployA?.state }),
      planSummary,
    );
    const editA = await run(
      'to_emu one-field edit',
      () =>
        client.reconcileProject({
          yaml: edited,
          files,
          state: deployA?.state,
          direction: 'to_emu',
          plan_identity: planEdit?.plan_identity,
        }),
      (r) => ({ ...planSummary(r), changed: r.changed }),
    );
    const stateA = editA?.state ?? deployA?.state;
    await run('plan A after edit', () => client.planProject({ yaml: edited, files, state: stateA }), planSummary);
    const b = otherLabYaml('scen-b');
    const deployB = await run(
      'deploy B',
      () => client.deployProject({ yaml: b }),
      (r) => ({ lab: r.lab, nodes: r.nodes, links: r.links }),
    );
    await run('inspect B (never started)', () => client.inspectProject({ lab: LAB_B, refresh: true }), nodeStates);
    await run(
      'start B',
      () => client.execProject({ yaml: b, state: deployB?.state, action: 'start' }),
      (r) => r.started,
    );
    await run(
      'stop B',
      () => client.execProject({ yaml: b, state: deployB?.state, action: 'stop' }),
      (r) => r.stopped,
    );
    await run('inspect A after B', () => client.inspectProject({ lab: LAB_A, refresh: true }), nodeStates);
    await run(
      'destroy B',
      () => client.destroyProject({ yaml: b, state: deployB?.state }),
      (r) => r.status,
    );
    await run('inspect A after destroying B', () => client.inspectProject({ lab: LAB_A, refresh: true }), nodeStates);
    const renamed = edited.replace('name: scen-a', 'name: scen-a2');
    const planRename = await run(
      'plan rename',
      () => client.planProject({ yaml: renamed, files, state: stateA }),
      planSummary,
    );
    const rename = await run(
      'to_emu rename',
      () =>
        client.reconcileProject({
          yaml: renamed,
          files,
          state: stateA,
          direction: 'to_emu',
          plan_identity: planRename?.plan_identity,
        }),
      (r) => ({ lab: r.lab, ...planSummary(r) }),
    );
    const stateRenamed = rename?.state ?? stateA;
    await run(
      'plan after rename',
      () => client.planProject({ yaml: renamed, files, state: stateRenamed }),
      planSummary,
    );
    await run(
      'destroy renamed A',
      () => client.destroyProject({ yaml: renamed, state: stateRenamed }),
      (r) => ({ lab: r.lab, status: r.status }),
    );
    await run(
      'destroy A',
      () => client.destroyProject({ yaml: edited, state: stateA }),
      (r) => ({ lab: r.lab, status: r.status }),
    );
    await client.logout();
    return steps;
  } finally {
    await client.close();
  }
}
