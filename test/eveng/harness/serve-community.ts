/**
 * Serves EVE-NG Community 6.2.0-4's API under the harness until Ctrl-C, for
 * trying the agent (or curl) against it by hand (serve-by-hand.ts says what it
 * prints):
 *   EVENG_SRC=/tmp/eve-ktk node out/test/eveng/harness/serve-community.js [PORT]
 */
import { startCommunityHarness } from './community-harness';
import { serveByHand } from './serve-by-hand';

serveByHand('EVE-NG Community', startCommunityHarness);
