/**
 * Generates valid lab documents of any size for tests and benchmarks: N nodes
 * over the common templates, about 2N links (most node to node, some to a
 * network), N/20 networks, `defaults`, and `position`, `config` and `icon` on
 * some nodes. The same seed always gives the same text.
 */
import { seededPick } from './random';

interface TemplateShape {
  template: string;
  prefix: string;
  image: string;
  ethernet: number;
  icon: string;
  /** The name of interface `index` (zero-based), as the template's eth_format makes it. */
  interfaceName(index: number): string;
}

const TEMPLATES: readonly TemplateShape[] = [
  {
    template: 'vios',
    prefix: 'r',
    image: 'vios-adventerprisek9-m.SPA.159-3.M6',
    ethernet: 8,
    icon: 'Router.png',
    interfaceName: (i) => `Gi0/${i}`,
  },
  {
    template: 'viosl2',
    prefix: 'sw',
    image: 'viosl2-adventerprisek9-m.SSA.high_iron_20200929',
    ethernet: 16,
    icon: 'Switch.png',
    interfaceName: (i) => `Gi${Math.floor(i / 4)}/${i % 4}`,
  },
  {
    template: 'iol',
    prefix: 'l2',
    image: 'i86bi_LinuxL2-AdvEnterpriseK9-M_152_May_2018.bin',
    ethernet: 16,
    icon: 'Switch.png',
    interfaceName: (i) => `e${Math.floor(i / 4)}/${i % 4}`,
  },
  {
    template: 'csr1000vng',
    prefix: 'csr',
    image: 'csr1000vng-universalk9.17.03.04a',
    ethernet: 8,
    icon: 'Router.png',
    interfaceName: (i) => `Gi${i + 1}`,
  },
  {
    template: 'veos',
    prefix: 'eos',
    image: 'veos-4.28.3M',
    ethernet: 9,
    icon: 'Switch.png',
    interfaceName: (i) => (i === 0 ? 'Management1' : `Ethernet${i}`),
  },
  {
    template: 'linux',
    prefix: 'h',
    image: 'linux-ubuntu-22.04-server',
    ethernet: 4,
    icon: 'Server.png',
    interfaceName: (i) => `e${i}`,
  },
  { template: 'vpcs', prefix: 'pc', image: '', ethernet: 1, icon: 'Desktop.png', interfaceName: () => 'eth0' },
];

export interface GenerateLabOptions {
  seed?: number;
}

export function generateLab(nodeCount: number, options: GenerateLabOptions = {}): string {
  const pick = seededPick(options.seed ?? 1);
  const count = Math.max(0, Math.floor(nodeCount));
  const nodes = Array.from({ length: count }, (_, i) => {
    const shape = TEMPLATES[i % TEMPLATES.length];
    return { name: `${shape.prefix}${i + 1}`, shape, used: 0 };
  });
  const networks = Array.from({ length: Math.floor(count / 20) }, (_, i) => ({
    name: `net${i + 1}`,
    type: i % 3 === 0 ? 'pnet1' : 'bridge',
  }));

  const lines: string[] = [
    `name: generated-${count}`,
    `description: Generated lab with ${count} nodes`,
    '# Every node inherits these unless it sets its own.',
    'defaults:',
    '  cpu: 1',
    '  ram: 1024',
    '  console: telnet',
    'nodes:',
  ];
  nodes.forEach((node, i) => {
    const { shape } = node;
    lines.push(`  ${node.name}:`, `    template: ${shape.template}`);
    if (shape.image) lines.push(`    image: ${shape.image}`);
    lines.push(`    ethernet: ${shape.ethernet}`);
    if (i % 4 === 0) lines.push(`    icon: ${shape.icon}`);
    if (shape.template === 'csr1000vng') lines.push('    ram: 4096', '    cpu: 2');
    if (i % 3 !== 2) lines.push(`    position: {x: ${100 + (i % 40) * 60}, y: ${100 + Math.floor(i / 40) * 80}}`);
    if (i % 5 === 0 && shape.template !== 'vpcs' && shape.template !== 'linux')
      lines.push(`    config: configs/${node.name}.cfg`);
  });
  if (networks.length > 0) {
    lines.push('networks:');
    for (const network of networks) lines.push(`  ${network.name}:`, `    type: ${network.type}`);
  }

  const linkLines: string[] = [];
  const freeNode = (exclude?: number): number | undefined => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const index = pick(nodes.length);
      if (index !== exclude && nodes[index].used < nodes[index].shape.ethernet) return index;
    }
    return undefined;
  };
  const endpoint = (index: number) => {
    const node = nodes[index];
    return `${node.name}:${node.shape.interfaceName(node.used++)}`;
  };
  for (let l = 0; l < 2 * count; l++) {
    const a = freeNode();
    if (a === undefined) break;
    if (networks.length > 0 && l % 10 === 9) {
      linkLines.push(`  - endpoints: [${endpoint(a)}, ${networks[pick(networks.length)].name}]`);
      continue;
    }
    const b = freeNode(a);
    if (b === undefined) break;
    if (l % 7 === 3) linkLines.push('  - endpoints:', `      - ${endpoint(a)}`, `      - ${endpoint(b)}`);
    else linkLines.push(`  - endpoints: [${endpoint(a)}, ${endpoint(b)}]`);
  }
  if (linkLines.length > 0) lines.push('links:', ...linkLines);
  return lines.join('\n') + '\n';
}
