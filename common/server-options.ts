/**
 * Node options of the language server process, as the extension starts it
 * (and the benchmarks, to measure what users get). The server keeps a few large
 * models and churns through garbage while parsing; without this, V8 keeps
 * several times the live heap as resident memory.
 *
 * The price is speed: V8 then leaves much hot code unoptimized. Measured on
 * this code: under the pressure fuzz (6,000 typed edits on the 2,000-node lab,
 * npm run bench lsp-pressure) the server needs 20-22 s of CPU and keeps up with
 * 800-880 edits/s, against 12 s and 930-1,110 edits/s with
 * --heap-growing-percent=20 instead; but with six labs open and typed into (two
 * of 10,000 nodes) that option ends at 382 MiB of RSS against 347 MiB.
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--optimize-for-size'];
