/**
 * Node options of the language server process, as the extension starts it
 * (and the benchmarks, to measure what users get): none now.
 *
 * It ran with --optimize-for-size while every keystroke at 10,000 nodes copied
 * the whole model and text, and V8 kept several times the live heap as
 * resident memory. An edit now makes anew only what it touched, and the
 * option's price is speed: V8 leaves much hot code unoptimized and collects
 * more often. Measured on this code (10,000-node lab over stdio, our server
 * alone, the bench's keystrokes; load about 1): keystroke -> diagnostics p50
 * 4.1 -> 2.5 ms and p95 17.1 -> 12.9 ms without it; opening two 10,000-node
 * labs and a 2,000-node one 6.4 -> 2.8 s, with resident memory 240 -> 279 MiB.
 *
 * --expose-gc lets the server collect once after a large document closes
 * (server/release-memory.ts): V8 otherwise keeps the heap that document grew
 * while the idle server allocates nothing.
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--expose-gc'];
