/** What the status bar item says about the connection, from the session's info (no secrets in it). */

export interface StatusInput {
  state: 'loggedOut' | 'connecting' | 'connected' | 'expired' | 'unreachable' | 'error';
  baseUrl?: string;
  username?: string;
  version?: string;
  emuReachable?: boolean;
  /** What the agent fronts, as its capabilities say (e.g. "EVE-NG Community 6.2.0-4"). */
  capabilities?: { emuDescription?: string };
  problem?: string;
}

/** The language server's report (SessionStatusNotification). */
export interface ServerStatus {
  state: 'none' | 'connected' | 'error';
  message?: string;
}

export interface StatusView {
  text: string;
  tooltip: string;
  /** 'warning' / 'error' pick the item's background. */
  tone: 'normal' | 'warning' | 'error';
}

function host(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return 'agent';
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

export function statusView(info: StatusInput, server: ServerStatus | undefined): StatusView {
  const where = host(info.baseUrl);
  const serverLine = server?.state === 'error' ? `\nEditor features: ${server.message ?? 'not working'}` : '';
  switch (info.state) {
    case 'loggedOut':
      return {
        text: '$(debug-disconnect) Lab Agent: Log In',
        tooltip: `Not logged in${info.problem ? `\n${info.problem}` : ''}\nClick to log in.`,
        tone: 'normal',
      };
    case 'connecting':
      return {
        text: `$(sync~spin) Lab Agent: ${where}`,
        tooltip: `Connecting to ${info.baseUrl ?? 'the agent'}…`,
        tone: 'normal',
      };
    case 'expired':
      return {
        text: '$(warning) Lab Agent: session expired',
        tooltip: `${info.problem ?? 'The session expired.'}\nClick to enter your password again.`,
        tone: 'warning',
      };
    case 'unreachable':
      return {
        text: `$(debug-disconnect) Lab Agent: ${where} unreachable`,
        tooltip: `${info.problem ?? 'The agent did not answer.'}\nTrying again by itself; click to try now.`,
        tone: 'warning',
      };
    case 'error':
      return {
        text: '$(error) Lab Agent: not connected',
        tooltip: `${info.problem ?? 'The connection failed.'}\nClick for details.`,
        tone: 'error',
      };
    case 'connected': {
      const emu = info.emuReachable === false ? ' $(warning) emulator down' : '';
      const version = info.version ? ` v${info.version}` : '';
      const tooltip = [
        `Connected to ${info.baseUrl ?? where}${info.username ? ` as ${info.username}` : ''}`,
        info.version ? `Agent version ${info.version}` : undefined,
        info.capabilities?.emuDescription ? `Emulator: ${info.capabilities.emuDescription}` : undefined,
        info.emuReachable === false
          ? 'The agent cannot reach the emulator.'
          : info.emuReachable === true
            ? 'The emulator is reachable.'
            : undefined,
        info.problem,
      ]
        .filter(Boolean)
        .join('\n');
      return {
        text: `$(vm-connect) ${info.username ? `${info.username}@` : ''}${where}${version}${emu}`,
        tooltip: `${tooltip}${serverLine}\nClick for details.`,
        tone: info.emuReachable === false || server?.state === 'error' || info.problem ? 'warning' : 'normal',
      };
    }
  }
}

/**
 * The view for one of several agents: its name after the icon, and in the
 * tooltip which agent it is and why (the active lab file's binding). A
 * lab bound to an agent that is not configured shows that instead.
 */
export function agentStatusView(
  view: StatusView | undefined,
  agent: string,
  why: string,
  problem?: string,
): StatusView {
  if (view === undefined || problem !== undefined)
    return {
      text: `$(error) ${agent}: not configured`,
      tooltip: `${problem ?? `The agent "${agent}" is not configured.`}\nClick for details.`,
      tone: 'error',
    };
  const icon = /^\$\([^)]+\) /.exec(view.text)?.[0] ?? '';
  return {
    text: `${icon}${agent} · ${view.text.slice(icon.length)}`,
    tooltip: `Agent "${agent}" (${why})\n${view.tooltip}`,
    tone: view.tone,
  };
}
