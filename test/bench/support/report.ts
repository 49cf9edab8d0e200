/**
 * How a benchmark section hands its figures to test/bench/run.mjs: one JSON
 * line per figure on stdout, prefixed with FIGURE_PREFIX. Anything else a
 * section prints is progress, shown as is.
 */

export const FIGURE_PREFIX = '@@figure ';

/** A limit the figure should meet: on its ratio to the baseline, or on its own value. */
export interface Target {
  on: 'ratio' | 'value';
  op: '<=' | '>=';
  limit: number;
}

export interface Figure {
  /** e.g. "lsp completion p95 (2000 nodes, interface)". */
  name: string;
  value: number;
  unit: string;
  /** The same figure measured for the baseline in the same run. */
  baseline?: { name: string; value: number };
  /** value / baseline.value unless given (e.g. a median of per-round ratios). */
  ratio?: number;
  targets?: Target[];
  /** The value only bounds what the target is about from below: it can show a miss, never a pass. */
  lowerBound?: boolean;
  /** Printed after the figure: how it was measured, or why a target cannot be checked. */
  note?: string;
}

export function report(figure: Figure): void {
  const ratio = figure.ratio ?? (figure.baseline ? figure.value / figure.baseline.value : undefined);
  process.stdout.write(`${FIGURE_PREFIX}${JSON.stringify({ ...figure, ratio })}\n`);
}

/** Progress for the person running the bench (stderr, so that it never mixes into a figure line). */
export function progress(message: string): void {
  process.stderr.write(`  · ${message}\n`);
}

export const MiB = 1024 * 1024;

/** Runs a section's main function; a failure is printed and ends the process with status 1. */
export function runSection(main: () => Promise<void>): void {
  // Interrupted: exit through 'exit', whose handlers stop the agent and servers this section started.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(130));
  process.stdout.on('error', () => process.exit(1));
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
