import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse as parseYamlValue } from 'yaml';
import { ICONS, findTemplate } from '../../agent/emulator/simulated/catalogue';
import { compileEthFormat } from '../../common/lab/rules/eth-format';
import {
  CONSOLE_TYPES,
  ELEMENT_NAME_PATTERN,
  LAB_NAME_PATTERN,
  LINK_KEYS,
  NETWORK_KEYS,
  POSITION_KEYS,
  TOP_LEVEL_KEYS,
} from '../../common/lab/rules/format';
import { interfacesInUse } from '../../common/lab/model/lookup';
import { parseLab } from '../../common/lab/parse/parse';
import { NODE_FIELD_NAMES, type LabDocument } from '../../common/lab/model/types';
import { validateLab } from '../../common/lab/rules/validate';
import { generateLab } from '../support/generate-lab';

const ROOT = join(__dirname, '../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const SAMPLE = read('samples/campus.lab.yaml');

/** The checks the agent makes against its catalogue, made here against the simulated emulator's own catalogue. */
function assertDeployable(doc: LabDocument): void {
  for (const node of doc.nodes) {
    const { template: id, image, icon, ethernet } = node.resolved;
    const template = findTemplate(id ?? '');
    assert.ok(template?.provisioned, `${node.name}: template ${id} is provisioned`);
    if (image)
      assert.ok(
        template.images.some((i) => i.id === image && i.available),
        `${node.name}: image ${image} is available`,
      );
    if (icon)
      assert.ok(
        ICONS.some((i) => i.id === icon),
        `${node.name}: icon ${icon}`,
      );
    const count = ethernet ?? template.defaults.ethernet;
    const names = compileEthFormat(template.ethFormat, template.ethName);
    for (const iface of interfacesInUse(doc, node.name).keys()) {
      assert.notEqual(
        names.indexOf(iface, count),
        undefined,
        `${node.name}:${iface} is one of its ${count} interfaces (${template.ethFormat})`,
      );
    }
  }
}

test('the sample lab is complete, valid and deployable to the simulated emulator', () => {
  const doc = parseLab(SAMPLE);
  assert.deepEqual(validateLab(doc), []);
  const templates = new Set(doc.nodes.map((n) => n.resolved.template));
  for (const template of ['vios', 'csr1000vng', 'viosl2', 'iol', 'linux']) assert.ok(templates.has(template), template);
  assert.equal(doc.networks.find((n) => n.name === 'mgmt')?.type?.value, 'pnet1');
  assert.ok(doc.links.length >= 5);
  assert.ok(
    doc.nodes.every((n) => n.resolved.position && n.resolved.ethernet !== undefined),
    'positions and explicit ethernet counts',
  );
  assertDeployable(doc);
});

test('the sample’s config references exist, and r1 keeps a free interface', () => {
  const doc = parseLab(SAMPLE);
  const configs = doc.nodes.flatMap((n) => (n.resolved.config ? [n.resolved.config] : []));
  assert.ok(configs.length >= 2);
  for (const config of configs) assert.ok(existsSync(join(ROOT, 'samples', config)), config);
  const r1 = doc.nodes.find((n) => n.name === 'r1');
  assert.ok(r1?.resolved.ethernet);
  assert.ok(
    interfacesInUse(doc, 'r1').size < r1.resolved.ethernet,
    'r1 has an unused interface for completion to offer',
  );
  assert.ok(SAMPLE.split('\n').filter((line) => line.trim().startsWith('#')).length >= 2, 'the sample shows comments');
});

test('generated labs are valid and deployable, and the same seed gives the same text', () => {
  const text = generateLab(210, { seed: 11 });
  const doc = parseLab(text);
  assert.deepEqual(validateLab(doc), []);
  assert.equal(doc.nodes.length, 210);
  assert.equal(doc.networks.length, 10);
  assert.ok(doc.links.length > 380 && doc.links.length <= 420, `${doc.links.length} links`);
  assert.ok(
    doc.links.some((l) => l.endpoints.some((e) => e.network)),
    'some links go to a network',
  );
  assert.ok(
    doc.nodes.some((n) => n.fields.config) &&
      doc.nodes.some((n) => n.fields.position) &&
      doc.nodes.some((n) => !n.fields.position),
  );
  assert.ok(doc.defaults.cpu);
  assertDeployable(doc);
  assert.equal(generateLab(210, { seed: 11 }), text);
  assert.notEqual(generateLab(210, { seed: 12 }), text);
});

interface SchemaNode {
  type?: string | string[];
  description?: string;
  examples?: unknown[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  propertyNames?: { pattern: string };
  items?: SchemaNode;
  enum?: string[];
  pattern?: string;
  $ref?: string;
}
const schema = JSON.parse(read('syntaxes/lab.schema.json')) as SchemaNode & { definitions: Record<string, SchemaNode> };

test('the JSON schema lists exactly the keys of the format', () => {
  const keys = (node: SchemaNode) => Object.keys(node.properties ?? {});
  assert.deepEqual(keys(schema), [...TOP_LEVEL_KEYS]);
  assert.deepEqual(keys(schema.definitions.nodeSettings), [...NODE_FIELD_NAMES]);
  assert.deepEqual(keys(schema.definitions.network), [...NETWORK_KEYS]);
  assert.deepEqual(keys(schema.definitions.link), [...LINK_KEYS]);
  assert.deepEqual(keys(schema.definitions.position), [...POSITION_KEYS]);
  assert.deepEqual(schema.definitions.nodeSettings.properties?.console.enum, [...CONSOLE_TYPES]);
  assert.equal(schema.properties?.name.pattern, LAB_NAME_PATTERN.source);
  assert.equal(schema.properties?.nodes.propertyNames?.pattern, ELEMENT_NAME_PATTERN.source);
  for (const closed of [
    schema,
    schema.definitions.nodeSettings,
    schema.definitions.network,
    schema.definitions.link,
    schema.definitions.position,
  ]) {
    assert.equal(closed.additionalProperties, false);
  }
});

test('every property of the schema has a description and examples', () => {
  const visit = (node: SchemaNode, where: string) => {
    for (const [name, property] of Object.entries(node.properties ?? {})) {
      assert.ok(property.description, `${where}.${name} has a description`);
      assert.ok(property.examples?.length, `${where}.${name} has examples`);
      visit(property, `${where}.${name}`);
    }
  };
  visit(schema, 'root');
  for (const [name, definition] of Object.entries(schema.definitions)) visit(definition, name);
});

test('the endpoint pattern of the schema accepts what the model reads and refuses the rest', () => {
  const pattern = new RegExp(schema.definitions.endpoint.pattern ?? '');
  for (const ok of ['r1:Gi0/0', 'sw-1:e0/1', 'eos_5:Ethernet1', 'mgmt', 'r1:Serial0/0:0'])
    assert.ok(pattern.test(ok), ok);
  for (const bad of ['r1:', 'r1: Gi0/0', ':Gi0/0', 'r 1:Gi0/0', '']) assert.ok(!pattern.test(bad), bad);
});

test('the sample validates against the JSON schema, and a broken lab does not', () => {
  // The schema is for the YAML tooling (redhat.vscode-yaml), which validates with ajv too.
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  assert.ok(validate(parseYamlValue(SAMPLE)), JSON.stringify(validate.errors));
  assert.ok(validate(parseYamlValue(generateLab(30))), JSON.stringify(validate.errors));
  for (const broken of [
    'name: t\ncolour: red\n',
    'name: t\nnodes:\n  r1: {template: vios, cpu: two}\n',
    'name: t\nnodes:\n  r1: {template: vios, console: ssh}\n',
    'name: t\nlinks:\n  - endpoints: [r1:Gi0/0]\n',
    'name: t\nlinks:\n  - endpoints: [r1:Gi0/0, r2:]\n',
    'name: a/b\n',
  ]) {
    assert.equal(validate(parseYamlValue(broken)), false, broken);
  }
});

test('the grammar builds on YAML and its endpoint rules match endpoints', () => {
  const grammar = JSON.parse(read('syntaxes/lab-yaml.tmLanguage.json'));
  assert.equal(grammar.scopeName, 'source.lab-yaml');
  assert.deepEqual(grammar.patterns, [{ include: 'source.yaml' }]);
  const rules = grammar.repository as Record<string, { match?: string }>;
  const match = (rule: string, text: string) => new RegExp(rules[rule].match ?? '').exec(text);
  assert.deepEqual(match('endpoint', 'r1:Gi0/0')?.slice(1), ['r1', ':', 'Gi0/0']);
  assert.deepEqual(match('endpoint', 'r1:')?.slice(1), ['r1', ':', '']);
  assert.deepEqual(match('flow-endpoints', '  - endpoints: [r1:Gi0/0, mgmt]')?.slice(1), [
    'endpoints',
    ':',
    '[',
    'r1:Gi0/0, mgmt',
    ']',
  ]);
  assert.ok(match('flow-endpoints-open', '  - endpoints: [r1:Gi0/0, r2:'));
  assert.deepEqual(match('block-endpoint', '      - srv1:e1')?.slice(1), ['srv1', ':', 'e1']);
  assert.equal(match('block-endpoint', '  - endpoints:'), null);
  assert.deepEqual(match('block-network', '      - mgmt  # cloud')?.slice(1), ['mgmt']);
});

test('the language configuration comments with # and indents after a key', () => {
  const configuration = JSON.parse(read('syntaxes/language-configuration.json'));
  assert.equal(configuration.comments.lineComment, '#');
  const increase = new RegExp(configuration.indentationRules.increaseIndentPattern);
  for (const line of ['nodes:', '  r1:', '  - endpoints:', '  r1:   # router', '  -'])
    assert.ok(increase.test(line), line);
  for (const line of ['    template: vios', '  - endpoints: [a, b]', '# nodes:']) assert.ok(!increase.test(line), line);
});

test('package.json wires the language, grammar and schema to files that exist', () => {
  const manifest = JSON.parse(read('package.json'));
  const language = manifest.contributes.languages.find((l: { id: string }) => l.id === 'lab-yaml');
  assert.ok(existsSync(join(ROOT, language.configuration)));
  const grammar = manifest.contributes.grammars.find((g: { language: string }) => g.language === 'lab-yaml');
  assert.equal(grammar.scopeName, 'source.lab-yaml');
  assert.ok(existsSync(join(ROOT, grammar.path)));
  assert.ok(manifest.contributes.yamlValidation.every((v: { url: string }) => existsSync(join(ROOT, v.url))));
});
