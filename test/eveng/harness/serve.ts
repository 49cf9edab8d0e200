/**
 * Serves UNetLab's API under the harness until Ctrl-C, for trying the agent
 * (or curl) against it by hand (serve-by-hand.ts says what it prints):
 *   UNETLAB_SRC=/tmp/unetlab-src node out/test/eveng/harness/serve.js [PORT]
 */
import { serveByHand } from './serve-by-hand';
import { startUnetlabHarness } from './unetlab-harness';

serveByHand('UNetLab', startUnetlabHarness);
