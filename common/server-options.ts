/**
 * Node options of the language server process, as the extension starts it
 * (and the benchmarks, to measure what users get). The server keeps a few large
 * models and churns through garbage while parsing; by default V8 lets the heap
 * grow to several times what is live. A growth factor of 1.2 keeps resident
 * memory near the live heap at the price of more frequent major collections.
 *
 * It replaced --optimize-for-size, which kept memory lower still but made V8
 * leave hot code unoptimized: under the pressure fuzz (6,000 typed edits on the
 * 2,000-node lab, npm run bench lsp-pressure) the server then needed 21.7 s of
 * CPU and kept up with 830 edits/s, against 13.3 s and 990-1,250 edits/s with
 * this option and 11.4-13.4 s with none; peak RSS was 150, 187 and 240-269 MiB.
 * On the 10,000-node lab (npm run bench lsp) typing p95 went from 852 to 110 ms
 * and RSS with every lab open from 258 to 416 MiB, 0.37x yaml-language-server's.
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--heap-growing-percent=20'];
