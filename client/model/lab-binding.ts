/**
 * Which agent a lab file belongs to. Pure: the inputs are the file's own
 * choice (workspace state, set by Move Lab to Another Agent), the folder's
 * setting labAgent.agent, and the configured agent names. The file's choice
 * wins over the folder's, the folder's over the default agent. A lab bound to
 * an agent that is not configured stays bound to it and says so: it is never
 * sent to another agent silently.
 */
import { DEFAULT_AGENT } from './agent-list';

export type BindingSource = 'file' | 'folder' | 'default';

export interface LabBinding {
  agent: string;
  source: BindingSource;
  /** Set when the agent is not configured: what to do about it. */
  problem?: string;
}

export interface BindingInput {
  /** The agent chosen for this file, if any. */
  fileChoice?: string;
  /** Setting labAgent.agent of the file's folder ('' or undefined: none). */
  folderSetting?: string;
  /** The configured agents' names. */
  agents: readonly string[];
}

export function bindLab(input: BindingInput): LabBinding {
  const folder = input.folderSetting?.trim();
  const binding: LabBinding =
    input.fileChoice !== undefined && input.fileChoice !== ''
      ? { agent: input.fileChoice, source: 'file' }
      : folder !== undefined && folder !== ''
        ? { agent: folder, source: 'folder' }
        : { agent: DEFAULT_AGENT, source: 'default' };
  if (!input.agents.includes(binding.agent)) {
    const how =
      binding.source === 'file'
        ? 'chosen for this file'
        : binding.source === 'folder'
          ? "named by its folder's setting labAgent.agent"
          : 'the default';
    binding.problem =
      `This lab belongs to the agent "${binding.agent}" (${how}), which is not configured. ` +
      'Add it (Lab Agent: Add Agent), or run Lab Agent: Move Lab to Another Agent.';
  }
  return binding;
}

/** The agents a lab can move to: every configured one but its own. */
export function moveTargets(binding: LabBinding, agents: readonly string[]): string[] {
  return agents.filter((a) => a !== binding.agent);
}

/**
 * The per-file choices after moving `uri` to `agent`: the choice is kept even
 * when the folder names the same agent, so a later change of the folder's
 * setting does not move the lab behind the user's back.
 */
export function choicesAfterMove(
  choices: Readonly<Record<string, string>>,
  uri: string,
  agent: string,
): Record<string, string> {
  return { ...choices, [uri]: agent };
}

/** How the status bar and views name a lab's agent: nothing extra while only the default agent exists. */
export function agentLabel(binding: LabBinding, agentCount: number): string | undefined {
  if (agentCount <= 1 && binding.agent === DEFAULT_AGENT && binding.problem === undefined) return undefined;
  return binding.agent;
}
