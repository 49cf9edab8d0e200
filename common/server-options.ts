/**
 * Node options of the language server process, as the extension starts it
 * (and the benchmarks, to measure what users get). The server keeps a few large
 * models and churns through garbage while parsing; without this, V8 keeps
 * several times the live heap as resident memory.
 *
 * The price is speed: V8 then leaves much hot code unoptimized. Measured on
 * this code: under the pressure fuzz (6,000 typed edits on the 2,000-node lab,
 * twice: npm run bench lsp-pressure) the server needs 7.3-7.4 s of CPU and keeps
 * up with 3,300-3,800 edits/s, against 4.5 s and 4,800-6,600 edits/s with
 * --heap-growing-percent=20 instead; but with six labs open and typed into (two
 * of 10,000 nodes) that option ends at 382 MiB of RSS against 347 MiB.
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--optimize-for-size'];
