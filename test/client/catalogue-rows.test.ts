import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  networkTypeRows,
  networkTypesMessage,
  templateDetailRows,
  templateRows,
} from '../../client/model/catalogue-rows';

const templates = {
  templates: [
    { id: 'vios', description: 'Cisco vIOS Router', type: 'qemu', provisioned: true, configSupported: true },
    { id: 'asav', description: 'Cisco ASAv', type: 'qemu', provisioned: false },
    { id: 'linux', description: 'Linux', provisioned: true },
    { description: 'no id: skipped' },
  ],
};

test('templates are sorted by id and marked when not provisioned', () => {
  const rows = templateRows(templates, false);
  assert.deepEqual(
    rows.map((r) => r.label),
    ['asav', 'linux', 'vios'],
  );
  const asav = rows[0];
  assert.equal(asav.icon, 'circle-slash');
  assert.equal(asav.description, 'Cisco ASAv · not provisioned');
  assert.equal(asav.collapsible, 'collapsed');
  assert.deepEqual(asav.data, { templateId: 'asav' });
  assert.match(rows[2].tooltip ?? '', /Startup configs: supported/);
  assert.equal(rows[2].contextValue, 'template provisioned');
});

test('the provisioned-only filter hides the others', () => {
  assert.deepEqual(
    templateRows(templates, true).map((r) => r.label),
    ['linux', 'vios'],
  );
});

test('an expanded template shows its images with availability and default, and its attributes', () => {
  const [images, attributes] = templateDetailRows({
    id: 'vios',
    default: 'vios-15.9',
    images: [
      { id: 'vios-15.9', available: true },
      { id: 'vios-15.6', available: false },
    ],
    attributes: [
      { name: 'ram', label: 'RAM (MB)', kind: 'number', group: 'hardware' },
      { name: 'console', kind: 'list', values: ['telnet', 'vnc'] },
    ],
  });
  assert.equal(images.label, 'Images');
  assert.equal(images.description, '2');
  assert.deepEqual(
    images.children?.map((c) => [c.label, c.description, c.icon]),
    [
      ['vios-15.9', 'available · default', 'check'],
      ['vios-15.6', 'not available', 'error'],
    ],
  );
  assert.equal(attributes.label, 'Attributes');
  assert.deepEqual(
    attributes.children?.map((c) => c.label),
    ['RAM (MB) (ram)', 'console'],
  );
  assert.equal(attributes.children?.[0].description, 'number · hardware');
  assert.match(attributes.children?.[1].tooltip ?? '', /telnet \| vnc/);
  // Row ids are unique across the whole tree.
  const ids = [images, attributes, ...(images.children ?? []), ...(attributes.children ?? [])].map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length);
});

test('a template without images or attributes shows empty groups that do not expand', () => {
  const rows = templateDetailRows({ id: 'x' });
  assert.deepEqual(
    rows.map((r) => [r.description, r.collapsible]),
    [
      ['none', 'none'],
      ['none', 'none'],
    ],
  );
});

test('network types show label and id, unsupported ones are marked; NAT-only gets a message', () => {
  const data = {
    natOnly: true,
    types: [
      { id: 'bridge', label: 'Bridge', supported: true },
      { id: 'pnet0', label: 'Management (Cloud0)', supported: false },
      { id: 'nat0' },
    ],
  };
  const rows = networkTypeRows(data);
  assert.deepEqual(
    rows.map((r) => [r.label, r.description]),
    [
      ['Bridge', 'bridge'],
      ['Management (Cloud0)', 'pnet0 · not supported'],
      ['nat0', ''],
    ],
  );
  assert.equal(networkTypesMessage(data), 'This emulator supports NAT networks only.');
  assert.equal(networkTypesMessage({ types: [] }), undefined);
});
