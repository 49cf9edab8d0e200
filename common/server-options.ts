/**
 * Node options of the language server process, as the extension starts it
 * (and the benchmarks, to measure what users get). The server keeps a few large
 * models and churns through garbage while parsing; without this, V8 keeps
 * several times the live heap as resident memory. On a 10,000-node lab it costs
 * documentSymbol and codeLens after an edit about twice the time (0.33x and
 * 0.20x yaml-language-server, against 0.16x and 0.13x without) and nothing
 * measurable on open (0.12x against 0.18x), for less RSS (176 MiB against 198
 * MiB; two runs of the lsp bench on that lab alone, which the machine load makes
 * noisy).
 */
export const SERVER_NODE_OPTIONS: readonly string[] = ['--optimize-for-size'];
