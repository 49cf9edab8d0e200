/** Connection and authentication: health, login, logout, session, capabilities. */
import type {
  CapabilitiesData,
  HealthData,
  LoginData,
  ProjectModeCaps,
  SessionData,
  StatusOkData,
} from '../../common/api/contract';
import { EmuError } from '../emulator/backend';
import { ApiError, invalidRequest } from '../http/api-error';
import { requiredString } from '../http/fields';
import type { PublicHandler, SessionHandler } from './handler';

export const AGENT_VERSION = '0.1.0';

const FEATURES = [
  'authoring',
  'validate',
  'import',
  'plan',
  'deploy',
  'reconcile',
  'destroy',
  'status',
  'inspect',
  'open',
  'consoles',
  'exec',
  'console_exec',
  'console_stream',
];

export const getHealth: PublicHandler = async (): Promise<HealthData> => ({
  status: 'ok',
  tls: true,
  version: AGENT_VERSION,
});

export const login: PublicHandler = async ({ ctx, body, address }): Promise<LoginData> => {
  const unknown = Object.keys(body).filter((k) => k !== 'username' && k !== 'password');
  if (unknown.length)
    throw invalidRequest(
      `Login takes only "username" and "password"; remove ${unknown.map((k) => `"${k}"`).join(', ')}.`,
    );
  const username = requiredString(body, 'username');
  const password = requiredString(body, 'password');
  // The name as the log shows it: quoted and escaped, never long.
  const who = `user ${JSON.stringify(username.slice(0, 64))} from ${address}`;
  const attempt = ctx.logins.attempt(username, address);
  if (!attempt.allowed) {
    const seconds = Math.ceil(attempt.retryAfterMs / 1000);
    ctx.log(`login throttled: ${who} (locked ${seconds} s more)`);
    throw new ApiError(
      'too_many_logins',
      `Too many failed logins for this user or from this address. Try again in ${seconds} s.`,
    );
  }
  if (!(await ctx.credentials.verify(username, password))) {
    ctx.log(`login refused: ${who} (${attempt.failures} failed in a row)`);
    throw new ApiError('invalid_credentials', 'Wrong username or password.');
  }
  ctx.logins.succeeded(attempt);
  ctx.log(`login: ${who}`);
  const emulator = await ctx.backend.connect(username);
  const session = ctx.sessions.create(username, emulator);
  return { token: session.token, username };
};

export const logout: SessionHandler = async ({ ctx, session }): Promise<StatusOkData> => {
  ctx.sessions.end(session);
  return { status: 'logged_out' };
};

export const getSession: SessionHandler = async ({ session }): Promise<SessionData> => ({ username: session.username });

export const getCapabilities: SessionHandler = async ({ session }): Promise<CapabilitiesData> => {
  let status;
  try {
    status = await session.emulator.status();
  } catch (e) {
    if (!(e instanceof EmuError && e.kind === 'unreachable')) throw e;
    return { emuReachable: false, emuProblem: e.message, features: {}, projectModes: {} };
  }
  const capabilities = referenceCapabilities();
  // Capture is offered only where the emulator can capture (decisions §14).
  if (session.emulator.capture) capabilities.features.capture = true;
  // Summaries beside the bytes need a dissector on the agent's machine (tshark).
  if (session.emulator.capture?.summarize) capabilities.features.capture_summaries = true;
  return {
    ...capabilities,
    emuBaseUrl: status.baseUrl,
    emuDescription: `${status.edition} ${status.version}`,
  };
};

/** What the reference agent offers while its emulator answers: every feature, in both project modes (decisions §6). */
export function referenceCapabilities(): CapabilitiesData & {
  features: Record<string, boolean>;
  projectModes: Record<'managed' | 'imported', ProjectModeCaps>;
} {
  const managed: ProjectModeCaps = {
    inspect: true,
    open: true,
    console: true,
    topology_mutation: true,
    reconcile: true,
    destroy: true,
    presentation_restore: true,
    source_mutation: true,
    lifecycle: { start: true, stop: true, wipe: true },
  };
  return {
    emuReachable: true,
    features: Object.fromEntries(FEATURES.map((f) => [f, true])),
    projectModes: { managed, imported: { ...managed, source_mutation: false } },
  };
}
