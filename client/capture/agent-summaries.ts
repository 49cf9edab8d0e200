/**
 * The packet list's rows as the agent's tshark decoded them, sent beside the
 * bytes (decisions §14, summaries stream): one JSON object a line, a packet
 * each, and a last line saying why the summaries ended. No tshark is needed on
 * this machine. Same events as the local decoder (decoder.ts).
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { SummariesEndLine } from '../../common/api/contract';
import { firstEnd, type DecoderEvents } from './decoder';
import { agentRow } from './packet-rows';

/** Reads the summaries stream to its end; stop() closes it (the capture goes on). */
export function readAgentSummaries(body: Readable, events: DecoderEvents): { stop(): void } {
  let stopped = false;
  const report = firstEnd(events);
  const lines = createInterface({ input: body, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (stopped) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return;
    }
    const row = agentRow(parsed);
    if (row) events.row(row);
    else if (typeof parsed === 'object' && parsed !== null && 'end' in parsed) {
      const last = parsed as SummariesEndLine;
      report(last.end === 'complete' ? undefined : (last.message ?? `the summaries ended (${last.end})`));
    }
  });
  body.on('error', () => undefined);
  lines.on('close', () =>
    report(stopped ? undefined : "the agent's summaries stream broke off before saying why it ended"),
  );
  return {
    stop: () => {
      stopped = true;
      body.destroy();
    },
  };
}
