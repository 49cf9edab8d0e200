/** What the user is told when a capture ends, from how it ended (recording.ts). Pure. */
import type { CaptureEnding } from './recording';

/** The agent's Capture-End reasons (decisions §14) in words. */
const AGENT_REASONS: Record<string, string> = {
  duration: 'it reached its time limit',
  max_bytes: 'it reached its size limit',
  node_stopped: 'a captured node stopped',
  agent_stopping: 'the agent is shutting down',
  failed: 'the capture tool failed on the agent (see the agent log)',
};

export function endingText(ending: CaptureEnding): string {
  if (ending.by === 'user') return 'Capture stopped.';
  if (ending.by === 'agent') return `The agent ended the capture: ${AGENT_REASONS[ending.reason] ?? ending.reason}.`;
  const message = ending.error instanceof Error ? ending.error.message : String(ending.error);
  if (ending.by === 'lost')
    return `The connection to the agent was lost mid-capture (${message}): the agent stopped or the network failed. The file keeps every packet that arrived.`;
  return `The capture file could not be written (${message}); the capture was stopped. The file keeps what was written before.`;
}
