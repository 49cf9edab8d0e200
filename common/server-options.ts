/**
 * Node options of the language server process, as the extension starts it
 * (and the benchmarks, to measure what users get). The server keeps a few large
 * models and churns through garbage while parsing; without this, V8 keeps
 * several times the live heap as resident memory.
 *
 * The price is speed: V8 then leaves much hot code unoptimized. Measured on
 * this code: under the pressure fuzz (6,000 typed edits on the 2,000-node lab,
 * npm run bench lsp-pressure) the server needs 21.7 s of CPU and keeps up with
 * 810-840 edits/s, against 13.3 s and 990-1,250 edits/s with
 * --heap-growing-percent=20 instead; but with every lab of the lsp bench open
 * (two of 10,000 nodes) that option ends at 504 MiB against 435 MiB, and the lsp
 * bench's RSS at 0.63x yaml-language-server, over its 0.5x target.
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--optimize-for-size'];
