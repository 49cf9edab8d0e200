import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLab } from '../../common/lab/parse/parse';
import { readPlainOutline } from '../../common/lab/parse/plain-outline';
import { layoutOf } from '../../common/lab/parse/layout';
import { ParsedLab } from '../../common/lab/model/document';
import type { LabDocument, Range } from '../../common/lab/model/types';
import { generateLab } from '../support/generate-lab';
import { withUnclosedBracket } from '../support/typing';
import { observe } from '../support/observe-lab';

const at = (text: string, range: Range | undefined) => (range ? text.slice(range.start, range.end) : undefined);

const LAB = `# comment at the top
name: campus
description: Two routers
defaults:
  cpu: 1
  console: telnet
nodes:
  r1:
    template: vios
    cpu: 2
    position: {x: 10, y: 20}
  sw1:
    template: viosl2
    ethernet: 8
networks:
  mgmt:
    type: pnet1
links:
  - endpoints: [r1:Gi0/0, sw1:Gi0/1]
  - endpoints:
      - r1:Gi0/1
      - mgmt
`;

test('a complete document is read into nodes, networks and links', () => {
  const doc = parseLab(LAB);
  assert.equal(doc.name?.value, 'campus');
  assert.equal(doc.description?.value, 'Two routers');
  assert.deepEqual(
    doc.nodes.map((n) => n.name),
    ['r1', 'sw1'],
  );
  assert.deepEqual(
    doc.networks.map((n) => [n.name, n.type?.value]),
    [['mgmt', 'pnet1']],
  );
  assert.deepEqual(
    doc.links.map((l) => l.endpoints.map((e) => e.text)),
    [
      ['r1:Gi0/0', 'sw1:Gi0/1'],
      ['r1:Gi0/1', 'mgmt'],
    ],
  );
  assert.deepEqual(doc.links[1].endpoints[1], {
    text: 'mgmt',
    range: doc.links[1].endpoints[1].range,
    network: 'mgmt',
  });
  assert.deepEqual(doc.syntaxErrors, []);
  assert.deepEqual(doc.formatIssues, []);
});

test('defaults apply to every node and a node’s own value wins', () => {
  const doc = parseLab(LAB);
  const [r1, sw1] = doc.nodes;
  assert.deepEqual(r1.resolved, { template: 'vios', cpu: 2, console: 'telnet', position: { x: 10, y: 20 } });
  assert.deepEqual(sw1.resolved, { template: 'viosl2', cpu: 1, ethernet: 8, console: 'telnet' });
  assert.equal(sw1.fields.cpu, undefined, 'fields hold only what the node itself says');
  assert.equal(doc.defaults.cpu?.value, 1);
});

test('defaults written after the nodes still apply', () => {
  const doc = parseLab('nodes:\n  r1: {template: vios}\ndefaults:\n  ram: 512\n');
  assert.equal(doc.nodes[0].resolved.ram, 512);
});

test('every range points at its text', () => {
  const doc = parseLab(LAB);
  const [r1] = doc.nodes;
  assert.equal(at(LAB, r1.nameRange), 'r1');
  assert.equal(at(LAB, r1.range), 'r1:\n    template: vios\n    cpu: 2\n    position: {x: 10, y: 20}');
  assert.equal(at(LAB, r1.fields.template?.range), 'vios');
  assert.equal(at(LAB, r1.fields.template?.keyRange), 'template');
  assert.equal(at(LAB, r1.fields.cpu?.range), '2');
  assert.equal(at(LAB, r1.fields.position?.range), '{x: 10, y: 20}');
  assert.equal(at(LAB, doc.name?.range), 'campus');
  assert.equal(at(LAB, doc.defaults.console?.range), 'telnet');
  const mgmt = doc.networks[0];
  assert.equal(at(LAB, mgmt.nameRange), 'mgmt');
  assert.equal(at(LAB, mgmt.range), 'mgmt:\n    type: pnet1');
  assert.equal(at(LAB, mgmt.type?.range), 'pnet1');
  const [first, second] = doc.links;
  assert.equal(at(LAB, first.range), '- endpoints: [r1:Gi0/0, sw1:Gi0/1]');
  assert.equal(at(LAB, second.range), '- endpoints:\n      - r1:Gi0/1\n      - mgmt');
  const [a, b] = first.endpoints;
  assert.deepEqual([at(LAB, a.range), at(LAB, a.nodeRange), at(LAB, a.interfaceRange)], ['r1:Gi0/0', 'r1', 'Gi0/0']);
  assert.deepEqual([at(LAB, b.range), at(LAB, b.nodeRange), at(LAB, b.interfaceRange)], ['sw1:Gi0/1', 'sw1', 'Gi0/1']);
  assert.equal(at(LAB, second.endpoints[1].range), 'mgmt');
});

test('ranges stay exact with CRLF line ends', () => {
  const text = LAB.replace(/\n/g, '\r\n');
  const doc = parseLab(text);
  assert.equal(at(text, doc.nodes[1].fields.ethernet?.range), '8');
  assert.equal(at(text, doc.links[1].endpoints[0].interfaceRange), 'Gi0/1');
  assert.equal(at(text, doc.nodes[0].range), 'r1:\r\n    template: vios\r\n    cpu: 2\r\n    position: {x: 10, y: 20}');
});

const HEAD = 'name: t\nnodes:\n  r1:\n    template: vios\nlinks:\n';

/** The last endpoint of the last link, as node / interface / the texts of its ranges. */
function lastEndpoint(text: string) {
  const doc = parseLab(text);
  const link = doc.links[doc.links.length - 1];
  const e = link.endpoints[link.endpoints.length - 1];
  return {
    node: e.node,
    iface: e.interface,
    text: at(text, e.range),
    nodeText: at(text, e.nodeRange),
    ifaceRange: e.interfaceRange,
    doc,
  };
}

test('a half-typed endpoint at the end of an unclosed list still names its node', () => {
  const text = HEAD + '  - endpoints: [r1:';
  const e = lastEndpoint(text);
  assert.deepEqual([e.node, e.iface, e.text, e.nodeText], ['r1', '', 'r1:', 'r1']);
  assert.deepEqual(e.ifaceRange, { start: text.length, end: text.length });
  assert.equal(e.doc.syntaxErrors.length > 0, true, 'the unclosed list is a syntax error');
  assert.ok(e.doc.syntaxErrors.every((err) => err.range.start >= HEAD.length && err.range.end <= text.length));
});

test('a half-typed endpoint before the closing bracket is read without any error', () => {
  const text = HEAD + '  - endpoints: [r1:Gi0/0, r2:]\n';
  const e = lastEndpoint(text);
  assert.deepEqual([e.node, e.iface, e.text, e.nodeText], ['r2', '', 'r2:', 'r2']);
  const colon = text.indexOf('r2:') + 3;
  assert.deepEqual(e.ifaceRange, { start: colon, end: colon });
  assert.deepEqual(e.doc.syntaxErrors, []);
  assert.deepEqual(e.doc.formatIssues, []);
});

test('a half-typed endpoint in a block list names its node, at the end of the text too', () => {
  for (const text of [
    HEAD + '  - endpoints:\n      - r1:\n',
    HEAD + '  - endpoints:\n      - r1:',
    HEAD + '  - endpoints:\n      - r1:   # typing\n',
  ]) {
    const e = lastEndpoint(text);
    assert.deepEqual([e.node, e.iface, e.text, e.nodeText], ['r1', '', 'r1:', 'r1'], text);
    const colon = text.lastIndexOf('r1:') + 3;
    assert.deepEqual(e.ifaceRange, { start: colon, end: colon });
  }
});

test('a quoted endpoint has ranges inside the quotes', () => {
  const text = HEAD + '  - endpoints: ["r1:Gi0/0", \'mgmt\']\n';
  const doc = parseLab(text);
  const [a, b] = doc.links[0].endpoints;
  assert.deepEqual(
    [at(text, a.range), at(text, a.nodeRange), at(text, a.interfaceRange)],
    ['"r1:Gi0/0"', 'r1', 'Gi0/0'],
  );
  assert.equal(b.network, 'mgmt');
});

test('an endpoint written with a space after the colon is still read, with an issue saying how to write it', () => {
  const text = HEAD + '  - endpoints: [r1: Gi0/0, mgmt]\n';
  const doc = parseLab(text);
  const e = doc.links[0].endpoints[0];
  assert.deepEqual([e.node, e.interface, at(text, e.interfaceRange)], ['r1', 'Gi0/0', 'Gi0/0']);
  const [issue] = doc.formatIssues;
  assert.equal(issue.code, 'endpoint-space');
  assert.equal(at(text, issue.range), 'r1: Gi0/0');
  assert.match(issue.message, /r1:Gi0\/0/);
});

test('syntax errors come with ranges and the rest of the document is still read', () => {
  const text = 'name: t\nnodes:\n  r1: {template: vios\n  r2:\n    template: iol\nlinks: []\n';
  const doc = parseLab(text);
  assert.ok(doc.syntaxErrors.length > 0);
  for (const error of doc.syntaxErrors) {
    assert.ok(error.range.start >= 0 && error.range.end <= text.length && error.range.start <= error.range.end);
    assert.ok(error.message.length > 0);
  }
  assert.equal(doc.name?.value, 't');
});

test('a big lab broken at a few lines reads as the yaml package reads it whole', () => {
  // Over 64 KB, a text the plain reader refuses at a line is read around it (parse.ts, readAround).
  const lab = generateLab(500);
  const inLinks = (text: string, line: string) => {
    const at = text.indexOf('\n', text.indexOf('endpoints:', text.length >> 1)) + 1;
    return text.slice(0, at) + line + text.slice(at);
  };
  const broken = {
    'an unclosed bracket near the top': withUnclosedBracket(lab),
    'a half-typed key in a node': lab.replace('\n    template: ', '\n    templ\n    template: '),
    'a half-typed link': inLinks(lab, '  - endpoints: [r1:e0, r2\n'),
    'two of them far apart': inLinks(withUnclosedBracket(lab), '  - endpoints: [r1:e0, r2\n'),
    'a node name without its colon': lab.replace('\n  r1:', '\n  r1'),
    'a section key without its colon': lab.replace('\nlinks:', '\nlinks'),
    'a value with a second colon': lab.replace('\n    image: ', '\n    image: a: b\n    x: '),
    'a key more indented than its siblings': lab.replace('\n    template: ', '\n      template: '),
    'a half-typed last line': `${lab}links2\n`,
  };
  // A quote anywhere, a comment too, sends the text to the yaml package whole: the reference.
  const QUOTE = '# "\n';
  const model = (doc: LabDocument) => ({
    nodes: doc.nodes,
    networks: doc.networks,
    links: doc.links,
    syntaxErrors: doc.syntaxErrors,
    formatIssues: doc.formatIssues,
  });
  for (const [name, text] of Object.entries(broken)) {
    assert.ok(text.length > 64 * 1024 && readPlainOutline(text).refusedAt !== undefined, name);
    assert.equal(readPlainOutline(text + QUOTE).refusedAt, undefined, name);
    const doc = parseLab(text);
    assert.notEqual(doc.syntaxErrors.length, 0, name);
    assert.deepStrictEqual(model(doc), model(parseLab(text + QUOTE)), name);
  }
});

test('shape problems are issues on the exact key or value, naming what is accepted', () => {
  const text = [
    'name: t',
    'colour: red',
    'nodes:',
    '  r1:',
    '    template: vios',
    '    cpu: two',
    '    cores: 2',
    '    position: {x: 1, z: 2}',
    '  r2: just-text',
    'networks:',
    '  lan:',
    '    type: bridge',
    '    vlan: 10',
    'links:',
    '  - endpoints: [r1:Gi0/0, lan]',
    '    speed: 1g',
    '',
  ].join('\n');
  const doc = parseLab(text);
  const issues = doc.formatIssues.map((i) => ({
    code: i.code,
    at: at(text, i.range),
    path: i.path.join('.'),
    message: i.message,
  }));
  const find = (code: string, where: string) => {
    const issue = issues.find((i) => i.code === code && i.at === where);
    assert.ok(issue, `${code} @ ${where} in ${JSON.stringify(issues, null, 1)}`);
    return issue;
  };
  assert.match(find('unknown-key', 'colour').message, /name, description, defaults, nodes, networks, links and tests/);
  assert.equal(find('unknown-key', 'colour').path, 'colour');
  assert.match(find('wrong-type', 'two').message, /cpu must be a whole number, e\.g\. cpu: 2/);
  assert.equal(find('wrong-type', 'two').path, 'nodes.r1.cpu');
  assert.match(
    find('unknown-key', 'cores').message,
    /template, image, icon, cpu, ram, ethernet, console, config and position/,
  );
  assert.match(find('unknown-key', 'z').message, /x and y/);
  assert.match(find('wrong-type', 'just-text').message, /node r2 must be a map/);
  assert.match(find('unknown-key', 'vlan').message, /type/);
  assert.match(find('unknown-key', 'speed').message, /endpoints/);
  assert.equal(doc.nodes[0].fields.cpu, undefined, 'a wrong value stays out of the model');
  assert.equal(doc.nodes[0].fields.position, undefined);
});

test('keys written twice are issues; the first one counts', () => {
  const text = 'name: t\nnodes:\n  r1:\n    template: vios\n    template: iol\n  r1:\n    template: veos\nname: u\n';
  const doc = parseLab(text);
  assert.equal(doc.name?.value, 't');
  assert.deepEqual(
    doc.nodes.map((n) => n.resolved.template),
    ['vios'],
  );
  const found = doc.formatIssues.map((i) => `${i.code} ${i.path.join('.')} @ ${i.range.start}`);
  assert.deepEqual(
    found.sort(),
    [
      `duplicate-key name @ ${text.lastIndexOf('name')}`,
      `duplicate-key nodes.r1 @ ${text.lastIndexOf('r1:')}`,
      `duplicate-key nodes.r1.template @ ${text.indexOf('template: iol')}`,
    ].sort(),
  );
});

test('empty values while typing are issues on the key, and an empty node is still a node', () => {
  const text = 'name: t\nnodes:\n  r1:\n    template:\n  r2:\n';
  const doc = parseLab(text);
  assert.deepEqual(
    doc.nodes.map((n) => n.name),
    ['r1', 'r2'],
  );
  const [issue] = doc.formatIssues;
  assert.equal(issue.code, 'missing-value');
  assert.equal(at(text, issue.range), 'template:');
  assert.match(issue.message, /template: vios/);
});

test('aliases are refused with a message, not followed', () => {
  const text = 'name: t\ndefaults: &d {cpu: 1}\nnodes:\n  r1:\n    template: vios\n    cpu: *d\n';
  const doc = parseLab(text);
  const issue = doc.formatIssues.find((i) => i.code === 'unsupported-alias');
  assert.ok(issue);
  assert.equal(at(text, issue.range), '*d');
});

test('a document that is not a map says what a lab file is', () => {
  const text = '- r1\n- r2\n';
  const doc = parseLab(text);
  assert.equal(doc.formatIssues[0].code, 'wrong-type');
  assert.match(doc.formatIssues[0].message, /name, description, defaults, nodes, networks, links and tests/);
  assert.deepEqual(doc.nodes, []);
});

test('an empty document is an empty lab', () => {
  for (const text of ['', '\n\n', '# only a comment\n', '---\n']) {
    const doc = parseLab(text);
    assert.deepEqual(
      [doc.nodes, doc.links, doc.syntaxErrors, doc.formatIssues],
      [[], [], [], []],
      JSON.stringify(text),
    );
    assert.equal(doc.rangeOfPath(['nodes']), undefined);
  }
});

test('parseLab never throws, whatever the input', () => {
  const inputs: unknown[] = [
    '['.repeat(20000),
    '{a: '.repeat(5000),
    '- '.repeat(20000) + 'x',
    Array.from({ length: 500 }, (_, i) => ' '.repeat(i) + 'k:').join('\n'),
    Array.from({ length: 4096 }, (_, i) => String.fromCharCode((i * 7919) % 65536)).join(''),
    '\u0000\u0001\u0002\uFFFE\uD800',
    'name: t\nnodes:\n  r1: *nope\n',
    '%YAML 1.1\n---\nname: t\n',
    'a: 1\n---\nb: 2\n',
    '? [complex, key]\n: value\n',
    'nodes:\n  ? r1\n  : template: vios\n',
    'links:\n  - endpoints: [[a, b], {c: d}, ~, "", 5]\n',
    undefined,
    null,
    42,
  ];
  for (const input of inputs) {
    let doc: LabDocument | undefined;
    assert.doesNotThrow(
      () => {
        doc = parseLab(input as string);
      },
      String(input).slice(0, 40),
    );
    assert.ok(doc && Array.isArray(doc.nodes) && Array.isArray(doc.syntaxErrors));
  }
});

test('a text far larger than any lab is refused with a message instead of stalling', () => {
  const text = 'name: big\ndescription: ' + 'x'.repeat(9 * 1024 * 1024) + '\n';
  const doc = parseLab(text);
  assert.equal(doc.syntaxErrors.length, 1);
  assert.match(doc.syntaxErrors[0].message, /over 8 MB/);
});

test('every prefix of a lab can be parsed, as while typing it', () => {
  for (let i = 0; i <= LAB.length; i++) {
    const doc = parseLab(LAB.slice(0, i));
    for (const node of doc.nodes) assert.ok(node.range.end <= i);
  }
});

test('rangeOfPath finds values by keys and indexes, or the closest ancestor', () => {
  const doc = parseLab(LAB);
  assert.equal(at(LAB, doc.rangeOfPath(['nodes', 'r1', 'cpu'])), '2');
  assert.equal(at(LAB, doc.rangeOfPath(['nodes', 'r1', 'position', 'y'])), '20');
  assert.equal(at(LAB, doc.rangeOfPath(['links', 1, 'endpoints', 0])), 'r1:Gi0/1');
  assert.equal(at(LAB, doc.rangeOfPath(['links', '1', 'endpoints', 1])), 'mgmt');
  assert.equal(at(LAB, doc.rangeOfPath(['networks', 'mgmt', 'type'])), 'pnet1');
  assert.equal(at(LAB, doc.rangeOfPath(['defaults', 'console'])), 'telnet');
  assert.equal(at(LAB, doc.rangeOfPath(['name'])), 'campus');
  // missing: the closest existing ancestor
  assert.equal(at(LAB, doc.rangeOfPath(['nodes', 'sw1', 'image'])), 'template: viosl2\n    ethernet: 8');
  assert.equal(at(LAB, doc.rangeOfPath(['links', 7])), at(LAB, doc.rangeOfPath(['links'])));
  assert.equal(at(LAB, doc.rangeOfPath(['nowhere', 'at', 'all'])), at(LAB, doc.rangeOfPath([])));
  assert.ok(at(LAB, doc.rangeOfPath(['nodes']))?.startsWith('r1:\n    template: vios'));
  assert.ok(at(LAB, doc.rangeOfPath([]))?.startsWith('name: campus'));
});

test('pathAt tells key from value, also just after a half-typed endpoint', () => {
  const doc = parseLab(LAB);
  assert.deepEqual(doc.pathAt(LAB.indexOf('template: vios') + 3), {
    path: ['nodes', 'r1', 'template'],
    on: 'key',
    range: doc.nodes[0].fields.template?.keyRange,
  });
  assert.deepEqual(doc.pathAt(LAB.indexOf('vios') + 2)?.path, ['nodes', 'r1', 'template']);
  assert.equal(doc.pathAt(LAB.indexOf('vios') + 2)?.on, 'value');
  assert.deepEqual(doc.pathAt(LAB.indexOf('sw1:Gi0/1') + 5)?.path, ['links', 0, 'endpoints', 1]);
  assert.deepEqual(doc.pathAt(LAB.indexOf('nodes:') + 2), {
    path: ['nodes'],
    on: 'key',
    range: { start: LAB.indexOf('nodes:'), end: LAB.indexOf('nodes:') + 5 },
  });
  assert.equal(doc.pathAt(0), undefined, 'the leading comment is outside every key');
  const text = HEAD + '  - endpoints: [r1:Gi0/0, r2:]\n';
  const half = parseLab(text);
  const found = half.pathAt(text.indexOf('r2:') + 3);
  assert.deepEqual(found?.path.slice(0, 4), ['links', 0, 'endpoints', 1]);
});

test('a lab whose items are read as the plain reader meets them reads as from its whole outline', () => {
  // The model of a layout made from the whole plain outline (values and all), as every piece sees it.
  const fromWholeOutline = (text: string): LabDocument => {
    const root = readPlainOutline(text).root;
    assert.ok(root, 'read as plain YAML');
    return new ParsedLab(text, layoutOf(text, root, true, []));
  };
  const texts = [
    LAB,
    generateLab(60, { seed: 11 }),
    // The defaults after the nodes: those read before them are resolved again.
    'nodes:\n  r1:\n    cpu: 2\n  r2: {}\nlinks:\n  - endpoints: [r1:e0, r2:e0]\ndefaults:\n  ram: 512\n  cpu: 1\n',
    // Two of a section, sections of the wrong type, items of the wrong type, an empty one.
    'nodes:\n  r1:\n    ram: 1\nnodes:\n  r2:\nlinks:\n  a: b\nnetworks:\n  - x\ndefaults:\n  - y\n',
    'links:\n  - x\n  - endpoints: [a:b]\n  -\nnetworks:\n  n1:\n    type: bridge\n  n2: 3\n',
  ];
  for (const text of texts) assert.deepStrictEqual(observe(parseLab(text)), observe(fromWholeOutline(text)), text);
});
