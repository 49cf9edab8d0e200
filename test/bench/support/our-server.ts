/**
 * How the benches start our language server: the built bundle, with the node options the extension
 * starts it with (common/server-options.ts, as client/language-client.ts does). For A/B runs,
 * BENCH_SERVER_BUNDLE names another build (e.g. the one before a change) and BENCH_SERVER_NODE_ARGS
 * adds node options (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { join } from 'node:path';
import { SERVER_NODE_OPTIONS } from '../../../common/server-options';
import { DIST } from './paths';

export function ourServer(): { name: string; script: string; nodeArgs: string[] } {
  return {
    name: 'lab-agent server',
    script: process.env.BENCH_SERVER_BUNDLE ?? join(DIST, 'server.js'),
    nodeArgs: [...SERVER_NODE_OPTIONS, ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean)],
  };
}
