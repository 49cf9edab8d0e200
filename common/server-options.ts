/**
 * Node options of the language server process, as the extension starts it
 * (and the benchmarks, to measure what users get). The server keeps a few large
 * models and churns through garbage while parsing; without this, V8 keeps
 * several times the live heap as resident memory.
 *
 * The price is speed: V8 then leaves much hot code unoptimized. Measured on
 * this code: under the pressure fuzz (6,000 typed edits on the 2,000-node lab,
 * valid and broken: npm run bench lsp-pressure; A/B pairs, quiet to loaded)
 * the server spends 450-680 µs of CPU per edit and keeps up with 2,300-3,500
 * edits/s, peaking at 113-115 MiB; with --heap-growing-percent=20 instead,
 * 250-440 µs and 3,300-5,600 edits/s, peaking at 146-148 MiB. With six labs
 * open and typed into (two of 10,000 nodes) that option ends at 382 MiB of RSS
 * against 347 MiB.
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--optimize-for-size'];
