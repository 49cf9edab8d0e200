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
 * --max-semi-space-size=8 halves the young generation V8 grows to (16 MB a
 * semi-space by default): an edit's garbage is a few hundred KB, so it is
 * collected young either way. Measured with the lsp bench's labs open and the
 * same typing, two interleaved runs each: resident memory 230 / 232 -> 223 /
 * 223 MiB; lsp-pressure at 10,000 nodes 1,510-2,005 -> 1,834-2,010 edits/s
 * (noise: the target is 1,000), peak 181-193 -> 173-177 MiB. Before the parse
 * read items as it met them (common/lab/parse/layout.ts, ItemsAsRead) it saved
 * 14 MiB for about 8 % of throughput; 4 MB semi-spaces cost 10-30 %.
 *
 * --expose-gc lets the server collect once after a large document closes
 * (server/release-memory.ts): V8 otherwise keeps the heap that document grew
 * while the idle server allocates nothing.
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=8', '--expose-gc'];
