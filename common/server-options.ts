/**
 * Node options of the language server process, as the extension starts it
 * (and the benchmarks, to measure what users get).
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
 *
 * --max-semi-space-size=8 halves V8's young generation (16 MiB a semi-space
 * by default): what a keystroke allocates dies young, and a young generation
 * half the size kept 11-12 MiB less resident with four labs open (10,000 and
 * 2,000 nodes, valid and broken; 272-274 -> 260-263 MiB) at the same
 * keystroke -> diagnostics p95 (7.6-8.2 ms against 9.5-12.2 ms, three rounds
 * of a new key at a person's pace each).
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--expose-gc', '--max-semi-space-size=8'];
