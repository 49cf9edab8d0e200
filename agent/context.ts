/**
 * Everything a request handler may use, made once per running agent (no
 * module-level state, so several agents can run in one process, as tests do).
 */
import type { EmulatorBackend } from './emulator/backend';
import type { ConsoleTickets } from './console/tickets';
import type { ConsoleRunner } from './console/console-runner';
import type { LabActivity } from './domain/lab-activity';
import type { LabOwners } from './domain/lab-owners';
import type { SessionStore } from './sessions';
import type { Credentials } from './users';
import type { LoginThrottle } from './login-throttle';
import type { ExecLimits } from './console/exec-limits';
import type { Captures } from './capture/captures';

export interface AgentContext {
  clock: () => number;
  credentials: Credentials;
  logins: LoginThrottle;
  /** Console exec-many calls in flight per user, commands running on the agent (decisions §11). */
  execs: ExecLimits;
  sessions: SessionStore;
  backend: EmulatorBackend;
  activity: LabActivity;
  /** Who owns which lab: other users' labs are 404 (decisions §13). */
  owners: LabOwners;
  tickets: ConsoleTickets;
  consoles: ConsoleRunner;
  /** Capture tickets and streams (decisions §14). */
  captures: Captures;
  log: (message: string) => void;
}
