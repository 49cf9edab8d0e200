/**
 * What serve.ts and serve-community.ts do with their harness: serve it until
 * Ctrl-C under the account lab-agent-svc (password from $EVE_PASSWORD, default
 * "lab-agent-svc") on the port given as the first argument (default a free
 * one), print its URL, and print the node runtime's calls when it stops.
 */
import type { HarnessAccount, ServedHarness } from './harness-home';

export function serveByHand(
  server: string,
  start: (options: { users: HarnessAccount[]; port?: number }) => Promise<ServedHarness>,
): void {
  const main = async () => {
    const port = process.argv[2] ? Number(process.argv[2]) : undefined;
    const account = { username: 'lab-agent-svc', password: process.env.EVE_PASSWORD ?? 'lab-agent-svc' };
    const harness = await start({ users: [account], ...(port ? { port } : {}) });
    console.log(`${server} ${harness.commit} at ${harness.url} (account ${account.username}); Ctrl-C stops it`);
    await new Promise<void>((resolve) => process.once('SIGINT', resolve));
    for (const call of harness.runtimeCalls()) console.log(`unl_wrapper ${call.args.join(' ')}`);
    await harness.close();
  };
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
