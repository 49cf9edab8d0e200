/**
 * An idle extension's requests to its agents, as the client makes them: the Labs
 * view (getProjectStatus per lab) and the Consoles view (listProjectConsoles per
 * lab), one loop per view over every lab, whatever its agent, each paced by
 * client/model/refresh-pacer.ts; and one heartbeat per agent's session
 * (getCapabilities when no call spoke with that agent lately). The minutes run on
 * a simulated clock; every load is a real request, and what it returns decides
 * "nothing changed".
 */
import type { AgentClient } from '../../../common/api/client';
import { heartbeatDue, HEARTBEAT_MS } from '../../../client/connection/session-machine';
import { afterLoad, initialPace, type PaceState } from '../../../client/model/refresh-pacer';

/** A lab the views show, on its agent's client. */
export interface ShownLab {
  client: AgentClient;
  payload: { lab: string };
}

export interface IdleRequests {
  /** getProjectStatus and listProjectConsoles: the views' loads. */
  labData: number;
  /** getCapabilities of the sessions' heartbeats. */
  heartbeats: number;
  /** Every request, per agent client. */
  perAgent: Map<AgentClient, number>;
}

interface View {
  load: (lab: ShownLab) => Promise<unknown>;
  pace: PaceState;
  nextAt: number;
}

/** Runs `minutes` simulated minutes; `paced` false: every view loads at the interval, no back-off. */
export async function simulateIdleViews(
  labs: readonly ShownLab[],
  options: { minutes: number; intervalMs: number; paced: boolean },
): Promise<IdleRequests> {
  const counted: IdleRequests = { labData: 0, heartbeats: 0, perAgent: new Map() };
  const agents = [...new Set(labs.map((l) => l.client))];
  const count = <T>(client: AgentClient, call: () => Promise<T>): Promise<T> => {
    counted.perAgent.set(client, (counted.perAgent.get(client) ?? 0) + 1);
    return call();
  };
  const views: View[] = [
    { load: (l) => count(l.client, () => l.client.getProjectStatus(l.payload)), pace: initialPace, nextAt: 0 },
    { load: (l) => count(l.client, () => l.client.listProjectConsoles(l.payload)), pace: initialPace, nextAt: 0 },
  ];
  const end = options.minutes * 60_000;
  const lastContact = new Map(agents.map((a) => [a, 0]));
  let nextBeat = HEARTBEAT_MS;
  for (;;) {
    const view = views.reduce((a, b) => (b.nextAt < a.nextAt ? b : a));
    const now = Math.min(view.nextAt, nextBeat);
    if (now >= end) break;
    if (now === nextBeat) {
      nextBeat += HEARTBEAT_MS;
      for (const agent of agents) {
        if (!heartbeatDue(lastContact.get(agent) ?? 0, now)) continue;
        counted.heartbeats++;
        await count(agent, () => agent.getCapabilities());
        lastContact.set(agent, now);
      }
      continue;
    }
    const shown = await Promise.all(labs.map((l) => view.load(l)));
    counted.labData += labs.length;
    for (const l of labs) lastContact.set(l.client, now);
    if (!options.paced) {
      view.nextAt = now + options.intervalMs;
      continue;
    }
    const next = afterLoad(view.pace, { fingerprint: JSON.stringify(shown), settling: false }, now, {
      intervalMs: options.intervalMs,
    });
    view.pace = next.state;
    view.nextAt = now + next.delayMs;
  }
  return counted;
}
