/**
 * The tolerance the EVE-NG facts ask for, on answers the fake server does not
 * give (other builds and forks): string codes, arrays instead of id-keyed
 * maps, 200 or 201, failures inside an HTTP 200, bare JSON, and the 6.2
 * write-up's object-style template list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemsOf, messageId, readAnswer } from '../../agent/emulator/eveng/envelope';
import {
  parseIcons,
  parseNetworkTypes,
  parseTemplateDetail,
  parseTemplateList,
} from '../../agent/emulator/eveng/catalogue';
import { parseInterfaces, parseNetworks, parseNode } from '../../agent/emulator/eveng/lab-client';
import { reachableConsoleUrl } from '../../agent/emulator/eveng/console';

test('code as a number or a string; 200 and 201 both succeed', () => {
  const stringCode = readAnswer(
    200,
    '{"code":"200","status":"success","message":"Topology loaded (60051).","data":[]}',
  );
  assert.equal(stringCode.ok, true);
  assert.equal(stringCode.code, 200);
  const created = readAnswer(
    201,
    '{"code":201,"status":"success","message":"Lab has been saved (60023).","data":{"id":7}}',
  );
  assert.equal(created.ok, true);
  assert.deepEqual(created.data, { id: 7 });
});

test('a failure inside an HTTP 200 is a failure, with its own code', () => {
  const refused = readAnswer(200, '{"code":400,"status":"fail","message":"Cannot authenticate the user (90014)."}');
  assert.equal(refused.ok, false);
  assert.equal(refused.code, 400);
  assert.equal(messageId(refused.message), 90014);
  const stringFail = readAnswer(200, '{"code":"412","status":"unauthorized","message":"x (90001)."}');
  assert.equal(stringFail.ok, false);
  assert.equal(stringFail.code, 412);
});

test('an HTTP failure whose body claims success is a failure', () => {
  const odd = readAnswer(500, '{"code":200,"status":"success","message":"ok"}');
  assert.equal(odd.ok, false);
  assert.equal(odd.code, 500);
});

test('bare JSON (no envelope) is the data; a non-JSON page is kept as text', () => {
  const icons = readAnswer(200, '{"Router.png":"Router","Switch.png":"Switch"}');
  assert.equal(icons.ok, true);
  assert.deepEqual(parseIcons(icons.data), [
    { id: 'Router.png', label: 'Router' },
    { id: 'Switch.png', label: 'Switch' },
  ]);
  const page = readAnswer(502, '<html>Bad Gateway</html>');
  assert.equal(page.ok, false);
  assert.match(page.message, /Bad Gateway/);
  assert.deepEqual(parseIcons(['Cloud.png']), [{ id: 'Cloud.png', label: 'Cloud' }]);
});

test('collections keyed by id or given as arrays read the same', () => {
  const keyed = { 3: { id: 3, name: 'r1' }, 1: { id: 1, name: 'r0' } };
  const listed = [
    { id: 1, name: 'r0' },
    { id: 3, name: 'r1' },
  ];
  const names = (c: unknown) =>
    itemsOf(c)
      .map((n) => String(n.name))
      .sort();
  assert.deepEqual(names(keyed), names(listed));
  const mapInterfaces = parseInterfaces({
    ethernet: { 1: { name: 'Gi0/1', network_id: '0' }, 0: { name: 'Gi0/0', network_id: 4 } },
  });
  const arrayInterfaces = parseInterfaces({
    ethernet: [
      { name: 'Gi0/0', network_id: 4 },
      { name: 'Gi0/1', network_id: 0 },
    ],
  });
  assert.deepEqual(mapInterfaces, arrayInterfaces);
  assert.deepEqual(mapInterfaces[0], { index: 0, name: 'Gi0/0', networkId: 4 });
  // IOL: port y of group x is EVE-NG interface x + 16·y; the agent counts e0/0, e0/1, … in order.
  const iol = parseInterfaces({
    sort: 'iol',
    ethernet: { 0: { name: 'e0/0' }, 16: { name: 'e0/1' }, 1: { name: 'e1/0', network_id: 3 }, 17: { name: 'e1/1' } },
  });
  assert.deepEqual(
    iol.map((i) => [i.index, i.name]),
    [
      [0, 'e0/0'],
      [1, 'e0/1'],
      [4, 'e1/0'],
      [5, 'e1/1'],
    ],
  );
});

test('template lists: {id: description} with .missing and .hided, or the 6.2 objects', () => {
  assert.deepEqual(parseTemplateList({ vios: 'Cisco vIOS', xrv9k: 'Cisco XRv 9000.missing', old: 'Old.hided' }), [
    { id: 'vios', description: 'Cisco vIOS', provisioned: true },
    { id: 'xrv9k', description: 'Cisco XRv 9000', provisioned: false },
  ]);
  assert.deepEqual(parseTemplateList([{ name: 'vios', type: 'qemu', description: 'Cisco vIOS', icon: 'Router.png' }]), [
    { id: 'vios', description: 'Cisco vIOS', provisioned: true },
  ]);
});

test('template detail: images, defaults and attributes from options; list as object or array', () => {
  const detail = {
    description: 'Cisco vIOS Router',
    type: 'qemu',
    options: {
      image: { type: 'list', name: 'Image', list: ['a', 'b'], value: 'b' },
      cpu: { type: 'input', name: 'CPU', value: '2' },
      ram: { type: 'input', name: 'RAM (MB)', value: 1024 },
      ethernet: { type: 'input', name: 'Ethernets', value: '6' },
      icon: { type: 'list', name: 'Icon', list: { 'Router.png': 'Router.png' }, value: 'Router.png' },
      console: { type: 'list', name: 'Console', list: { telnet: 'telnet', vnc: 'vnc' }, value: 'telnet' },
      uuid: { type: 'input', name: 'UUID', value: '' },
    },
  };
  const t = parseTemplateDetail('vios', detail, { id: 'vios', description: 'Cisco vIOS Router', provisioned: true });
  assert.deepEqual(
    t.images.map((i) => i.id),
    ['a', 'b'],
  );
  assert.equal(t.defaultImage, 'b');
  assert.deepEqual(t.defaults, { cpu: 2, ram: 1024, ethernet: 6, icon: 'Router.png', console: 'telnet' });
  assert.equal(t.ethFormat, 'Gi0/{0}');
  assert.equal(t.configSupported, false);
  assert.ok(!t.attributes.some((a) => a.name === 'uuid'));
  assert.deepEqual(
    t.attributes.find((a) => a.name === 'console'),
    { name: 'console', label: 'Console', kind: 'list', group: 'basic', values: ['telnet', 'vnc'] },
  );
  // An unknown template gets EVE-NG's default naming.
  assert.equal(parseTemplateDetail('mystery', {}, undefined).ethFormat, 'e{0}');
});

test('network types: Community map, Pro extras, or a list', () => {
  const types = parseNetworkTypes({ bridge: 'bridge', pnet0: 'Management(Cloud0)', nat0: 'NAT' });
  assert.deepEqual(
    types.map((t) => [t.id, t.label, t.supported]),
    [
      ['bridge', 'bridge', true],
      ['pnet0', 'Management(Cloud0)', true],
      ['nat0', 'NAT', true],
    ],
  );
  assert.deepEqual(
    parseNetworkTypes(['bridge', 'ovs']).map((t) => t.id),
    ['bridge', 'ovs'],
  );
});

test('nodes and networks: string numbers, status clamped, visibility 0/1 or absent, console host rewritten', () => {
  const node = parseNode(
    {
      id: '2',
      name: 'r1',
      type: 'qemu',
      template: 'vios',
      image: 'x',
      status: '2',
      console: 'telnet',
      url: 'telnet://eve.lab.local:32770',
      cpu: '1',
      ram: '512',
      ethernet: '4',
      left: '10',
      top: 20,
    },
    [],
    undefined,
    '192.0.2.5',
  );
  assert.equal(node.id, 2);
  assert.equal(node.status, 2);
  assert.equal(node.url, 'telnet://192.0.2.5:32770');
  assert.equal(node.left, 10);
  // EVE-NG's 3 is "running, config being injected" (Node::getStatus), not stopping; 1 is starting.
  assert.equal(parseNode({ id: 1, status: 9 }, [], undefined, 'h').status, 2);
  assert.equal(parseNode({ id: 1, status: 3 }, [], undefined, 'h').status, 2);
  assert.equal(parseNode({ id: 1, status: 1 }, [], undefined, 'h').status, 1);
  // VPCS nodes read back with image "none"; IOL's ethernet is port groups of four.
  assert.equal(parseNode({ id: 1, type: 'vpcs', image: 'none' }, [], undefined, 'h').image, '');
  assert.equal(parseNode({ id: 1, type: 'iol', ethernet: '2' }, [], undefined, 'h').ethernet, 8);
  assert.equal(parseNetworks([{ id: 1, name: 'n', type: 'bridge', visibility: '0' }], [])[0].visibility, false);
  assert.equal(parseNetworks([{ id: 1, name: 'n', type: 'bridge' }], [])[0].visibility, true);
  assert.equal(reachableConsoleUrl('/html5/#/client/abc?token=x', 'h'), undefined);
  assert.equal(reachableConsoleUrl('telnet://[fe80::1]:32769', '10.0.0.1'), 'telnet://10.0.0.1:32769');
});
