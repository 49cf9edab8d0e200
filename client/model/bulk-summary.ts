/** One sentence about what a start/stop/wipe did, from the BulkResult counters. */
import type { BulkResult } from '../../common/api/contract';

export type LifecycleAction = 'start' | 'stop' | 'wipe';

export interface BulkSummary {
  text: string;
  /** 'error' when nothing succeeded and something failed, 'warning' when something failed. */
  severity: 'info' | 'warning' | 'error';
}

const VERB: Readonly<Record<LifecycleAction, string>> = { start: 'Start', stop: 'Stop', wipe: 'Wipe' };

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}

export function summarizeBulk(result: Partial<BulkResult>, action: LifecycleAction, target: string): BulkSummary {
  const parts: string[] = [];
  const add = (n: number, words: string): void => {
    if (n > 0) parts.push(`${n} ${words}`);
  };
  add(count(result.started), 'started');
  add(count(result.already_running), 'already running');
  add(count(result.already_starting), 'already starting');
  add(count(result.stopped), 'stopped');
  add(count(result.already_stopped), 'already stopped');
  add(count(result.wiped), 'wiped');
  const failed = count(result.failed);
  const invalid = count(result.invalid);
  add(failed, 'failed');
  add(invalid, 'not in the deployed lab');

  const requested = count(result.requested);
  const nodes = `${requested} node${requested === 1 ? '' : 's'}`;
  const detail = parts.length > 0 ? parts.join(', ') : 'nothing to do';
  const hint =
    failed > 0
      ? ` The emulator refused ${failed === 1 ? 'one node' : 'some nodes'}; check their templates and images.`
      : '';
  const text = `${VERB[action]} ${target}: ${nodes} requested; ${detail}.${hint}`;

  const succeeded = requested - failed - invalid;
  const severity = failed + invalid === 0 ? 'info' : succeeded <= 0 ? 'error' : 'warning';
  return { text, severity };
}
