/**
 * The extension manifest's contributions hang together: every menu entry names
 * a contributed command, every capability context key names a real action,
 * the lens commands exist, and the files it points at are there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabCommand } from '../../common/commands';
import { capabilityContextKeys } from '../../client/model/capabilities';

const root = join(__dirname, '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const contributes = manifest.contributes;
const commands: string[] = contributes.commands.map((c: { command: string }) => c.command);

test('every command has a category, a title and a codicon', () => {
  for (const c of contributes.commands) {
    assert.equal(c.category, 'Lab Agent', c.command);
    assert.ok(c.title, c.command);
    assert.match(c.icon ?? '', /^\$\([a-z-]+\)$/, c.command);
  }
  assert.equal(new Set(commands).size, commands.length, 'a command is contributed twice');
});

test('the commands of common/commands.ts are exactly the contributed ones', () => {
  assert.deepEqual([...Object.values(LabCommand)].sort(), [...commands].sort());
});

test('every menu entry names a contributed command or submenu', () => {
  const submenus = new Set(contributes.submenus.map((s: { id: string }) => s.id));
  for (const [menu, entries] of Object.entries(
    contributes.menus as Record<string, { command?: string; submenu?: string }[]>,
  )) {
    for (const e of entries) {
      if (e.submenu !== undefined) assert.ok(submenus.has(e.submenu), `${menu}: ${e.submenu}`);
      else assert.ok(commands.includes(e.command ?? ''), `${menu}: ${e.command}`);
    }
  }
});

test('capability context keys in when clauses are ones the extension sets', () => {
  const known = new Set(Object.keys(capabilityContextKeys(undefined)));
  const text = JSON.stringify(contributes);
  for (const key of text.match(/labAgent\.can\.[A-Za-z]+/g) ?? []) assert.ok(known.has(key), key);
});

test('views live in the activity bar container, whose icon exists; walkthrough media exist', () => {
  const container = contributes.viewsContainers.activitybar[0];
  assert.ok(existsSync(join(root, container.icon)), container.icon);
  assert.deepEqual(
    contributes.views[container.id].map((v: { id: string }) => v.id),
    ['labAgent.labs', 'labAgent.consoles', 'labAgent.templates', 'labAgent.networkTypes'],
  );
  for (const walkthrough of contributes.walkthroughs) {
    for (const step of walkthrough.steps) assert.ok(existsSync(join(root, step.media.markdown)), step.media.markdown);
  }
});

test('the settings the extension reads are declared with descriptions', () => {
  const properties = contributes.configuration.properties;
  for (const key of [
    'labAgent.agentUrl',
    'labAgent.username',
    'labAgent.tls.pin',
    'labAgent.tls.caFile',
    'labAgent.templates.provisionedOnly',
  ]) {
    assert.ok(properties[key], key);
    assert.ok(properties[key].markdownDescription || properties[key].description, key);
  }
  // A workspace must not be able to choose which certificate is trusted.
  assert.equal(properties['labAgent.tls.pin'].scope, 'machine');
  assert.equal(properties['labAgent.tls.caFile'].scope, 'machine');
});
