/**
 * Serves EVE-NG Community 6.2.0-4's API under the harness until Ctrl-C, for
 * trying the agent (or curl) against it by hand:
 *   EVENG_SRC=/tmp/eve-ktk node out/test/eveng/harness/serve-community.js [PORT]
 * It creates the account lab-agent-svc (password from $EVE_PASSWORD, default
 * "lab-agent-svc") and prints the URL; the node runtime's calls are printed
 * when it stops.
 */
import { startCommunityHarness } from './community-harness';

async function main(): Promise<void> {
  const port = process.argv[2] ? Number(process.argv[2]) : undefined;
  const account = { username: 'lab-agent-svc', password: process.env.EVE_PASSWORD ?? 'lab-agent-svc' };
  const harness = await startCommunityHarness({ users: [account], ...(port ? { port } : {}) });
  console.log(`EVE-NG Community ${harness.commit} at ${harness.url} (account ${account.username}); Ctrl-C stops it`);
  await new Promise<void>((resolve) => process.once('SIGINT', resolve));
  for (const call of harness.runtimeCalls()) console.log(`unl_wrapper ${call.args.join(' ')}`);
  await harness.close();
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
