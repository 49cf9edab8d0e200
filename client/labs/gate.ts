/** The capability check every lab command makes before calling the agent. */
import { AgentError, type AgentClient } from '../../common/api/client';
import type { Session } from '../connection/session';
import { labActionDenial, type LabAction } from '../model/capabilities';
import type { LabContext } from './lab-context';

/** The session's client when the agent allows `action` on this lab; else throws the reason. */
export function allowedClient(session: Session, action: LabAction, lab: Pick<LabContext, 'mode'>): AgentClient {
  const client = session.agent();
  if (session.capabilities === undefined && session.current.state === 'expired') {
    // Expired before anything was read (at restore): renewing the session comes first.
    throw new AgentError('expired_agent_session', session.current.problem ?? 'Your session ended.', 'session');
  }
  const denial = labActionDenial(session.capabilities, action, lab.mode);
  if (denial !== undefined) throw new Error(denial);
  return client;
}
