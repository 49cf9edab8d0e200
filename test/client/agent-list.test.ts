/**
 * The agents from the settings, and where each keeps its token: the
 * single-agent settings are the agent "default", labAgent.agents adds named
 * ones, bad entries are left out with a reason, and upgrading from the
 * single-agent versions keeps the logged-in user logged in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  agentList,
  agentNameProblem,
  withAgentAdded,
  withAgentRemoved,
  withAgentUpdated,
} from '../../client/model/agent-list';
import {
  agentTokenKey,
  deleteAgentToken,
  forgetStaleTokens,
  readAgentToken,
  storeAgentToken,
  type SecretStore,
} from '../../client/model/agent-tokens';
import { tokenSecretKey } from '../../client/model/agent-url';

const single = { agentUrl: 'https://127.0.0.1:8787', username: 'lab', pin: '', caFile: '' };

/** VS Code's SecretStorage as a map: the keys the extension writes are what is checked. */
class MemorySecrets implements SecretStore {
  readonly map = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this.map.get(key);
  }
  async store(key: string, value: string): Promise<void> {
    this.map.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.map.delete(key);
  }
}

test('without labAgent.agents there is one agent, "default", from the single-agent settings', () => {
  assert.deepEqual(agentList(single, undefined), {
    agents: [{ name: 'default', url: 'https://127.0.0.1:8787', username: 'lab', pin: '', caFile: '' }],
    problems: [],
  });
  assert.deepEqual(agentList(single, []).agents.length, 1);
});

test('named agents follow the default one in the order of the setting, URLs made canonical', () => {
  const list = agentList(single, [
    { name: 'eve', url: 'eve.example:8787/', username: 'admin', pin: 'AA' },
    { name: 'workstation', url: 'https://10.0.0.2:8787' },
  ]);
  assert.deepEqual(list.problems, []);
  assert.deepEqual(
    list.agents.map((a) => [a.name, a.url, a.username, a.pin]),
    [
      ['default', 'https://127.0.0.1:8787', 'lab', ''],
      ['eve', 'https://eve.example:8787', 'admin', 'AA'],
      ['workstation', 'https://10.0.0.2:8787', '', ''],
    ],
  );
});

test('entries that cannot be used are left out, each with a reason; the others stay', () => {
  const list = agentList(single, [
    'eve',
    { url: 'https://a:1' },
    { name: 'Default', url: 'https://a:1' },
    { name: 'a', url: 'http://a:1' },
    { name: 'b', url: 'https://b:1' },
    { name: 'B', url: 'https://b2:1' },
    { name: 'c', url: 'https://c:1', password: 'hunter2' },
  ]);
  assert.deepEqual(
    list.agents.map((a) => a.name),
    ['default', 'b', 'c'],
  );
  assert.equal(list.problems.length, 6);
  assert.match(list.problems[0] ?? '', /entry 1: expected an object/);
  assert.match(list.problems[1] ?? '', /entry 2: An agent name is/);
  assert.match(list.problems[2] ?? '', /entry 3: "default" is the agent of the labAgent.agentUrl setting/);
  assert.match(list.problems[3] ?? '', /entry 4 \("a"\): The agent is reached over HTTPS only/);
  assert.match(list.problems[4] ?? '', /entry 6: There is already an agent named "B"/);
  assert.match(list.problems[5] ?? '', /entry 7 \("c"\): a password is never read from settings/);
  // The password is not carried anywhere.
  assert.ok(!JSON.stringify(list).includes('hunter2'));
  assert.deepEqual(agentList(single, { name: 'x' }).problems, ['Setting labAgent.agents: expected a list of agents.']);
});

test('agent names: short, printable, not taken, not "default"', () => {
  assert.equal(agentNameProblem('eve-ng lab', ['default']), undefined);
  assert.ok(agentNameProblem('', []));
  assert.ok(agentNameProblem(' x', []));
  assert.ok(agentNameProblem('x'.repeat(41), []));
  assert.ok(agentNameProblem('a/b', []));
  assert.ok(agentNameProblem('DEFAULT', []));
  assert.ok(agentNameProblem('Eve', ['eve']));
});

test('adding, updating and removing entries keeps the entries it cannot read', () => {
  const stored: unknown[] = [{ name: 'eve', url: 'https://e:1' }, 42];
  const added = withAgentAdded(stored, { name: 'ws', url: 'https://w:1', username: 'me' });
  assert.deepEqual(added, [
    { name: 'eve', url: 'https://e:1' },
    42,
    { name: 'ws', url: 'https://w:1', username: 'me' },
  ]);
  assert.deepEqual(withAgentUpdated(added, 'eve', { pin: 'AB', username: undefined }), [
    { name: 'eve', url: 'https://e:1', pin: 'AB', username: undefined },
    42,
    { name: 'ws', url: 'https://w:1', username: 'me' },
  ]);
  assert.deepEqual(withAgentRemoved(added, 'eve'), [42, { name: 'ws', url: 'https://w:1', username: 'me' }]);
  assert.deepEqual(withAgentAdded(undefined, { name: 'a', url: 'https://a:1' }), [{ name: 'a', url: 'https://a:1' }]);
});

test('each agent keeps its own token, under its name and URL', async () => {
  const secrets = new MemorySecrets();
  const eve = { name: 'eve', url: 'https://e:1' };
  const ws = { name: 'ws', url: 'https://w:1' };
  await storeAgentToken(secrets, eve, 'T-eve');
  await storeAgentToken(secrets, ws, 'T-ws');
  assert.equal(await readAgentToken(secrets, eve), 'T-eve');
  assert.equal(await readAgentToken(secrets, ws), 'T-ws');
  // A token never goes to another address, even under the same name.
  assert.equal(await readAgentToken(secrets, { name: 'eve', url: 'https://elsewhere:1' }), undefined);
  await deleteAgentToken(secrets, eve);
  assert.equal(await readAgentToken(secrets, eve), undefined);
  assert.equal(await readAgentToken(secrets, ws), 'T-ws');
  assert.notEqual(agentTokenKey(eve), agentTokenKey({ name: 'eve2', url: eve.url }));
});

test('upgrading from the single-agent versions: the default agent takes over the stored token', async () => {
  const secrets = new MemorySecrets();
  const url = 'https://127.0.0.1:8787';
  secrets.map.set(tokenSecretKey(url), 'T-old');
  const agent = { name: 'default', url };
  assert.equal(await readAgentToken(secrets, agent), 'T-old');
  // Moved, not copied: one place for one token.
  assert.deepEqual([...secrets.map], [[agentTokenKey(agent), 'T-old']]);
  assert.equal(await readAgentToken(secrets, agent), 'T-old');
  // Only the default agent inherits it, and only for its URL.
  secrets.map.set(tokenSecretKey('https://e:1'), 'T-e');
  assert.equal(await readAgentToken(secrets, { name: 'eve', url: 'https://e:1' }), undefined);
  assert.equal(await readAgentToken(secrets, { name: 'default', url: 'https://other:1' }), undefined);
  // Logging out of the default agent leaves no token behind under either key.
  secrets.map.set(tokenSecretKey(url), 'T-stale');
  await deleteAgentToken(secrets, agent);
  assert.equal(secrets.map.has(tokenSecretKey(url)), false);
  assert.equal(secrets.map.has(agentTokenKey(agent)), false);
});

test('a token never outlives its agent entry: an agent removed or given another URL loses it', async () => {
  const secrets = new MemorySecrets();
  const eve = { name: 'eve', url: 'https://eve.example:8787' };
  const ws = { name: 'ws', url: 'https://127.0.0.1:9000' };
  const site = { name: 'site', url: 'https://site.example:8787' };
  const home = { name: 'default', url: 'https://127.0.0.1:8787' };
  for (const agent of [eve, ws, site, home]) await storeAgentToken(secrets, agent, `T-${agent.name}`);
  const eveMoved = { name: 'eve', url: 'https://eve2.example:8787' };
  const homeMoved = { name: 'default', url: 'https://127.0.0.1:8788' };
  await forgetStaleTokens(secrets, [home, eve, ws, site], [homeMoved, eveMoved, ws]);
  // eve's old address issued its token; site is gone; ws did not change.
  assert.equal(await readAgentToken(secrets, eve), undefined);
  assert.equal(await readAgentToken(secrets, eveMoved), undefined);
  assert.equal(await readAgentToken(secrets, site), undefined);
  assert.equal(await readAgentToken(secrets, ws), 'T-ws');
  assert.equal(await readAgentToken(secrets, home), undefined);
  assert.deepEqual([...secrets.map.keys()], [agentTokenKey(ws)]);
});

test("the default agent's log-in to a new URL leaves no token under the old one", async () => {
  const secrets = new MemorySecrets();
  const before = { name: 'default', url: 'https://127.0.0.1:8787' };
  const after = { name: 'default', url: 'https://lab.example:8787' };
  await storeAgentToken(secrets, before, 'T-old');
  // A single-agent version's key for the old URL, never read since: it goes too.
  secrets.map.set(tokenSecretKey(before.url), 'T-legacy');
  // The log-in stores its token under the new URL, then writes labAgent.agentUrl; the agent list follows.
  await storeAgentToken(secrets, after, 'T-new');
  await forgetStaleTokens(secrets, [before], [after]);
  assert.deepEqual([...secrets.map], [[agentTokenKey(after), 'T-new']]);
  assert.equal(await readAgentToken(secrets, after), 'T-new');
  // Back to the old URL: nothing of the old session is there to be sent.
  assert.equal(await readAgentToken(secrets, before), undefined);
});
