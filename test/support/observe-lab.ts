import type { LabDocument } from '../../common/lab/model/types';

/** Everything a consumer can observe of a model, as plain data. */
export function observe(doc: LabDocument) {
  const paths: (string | number)[][] = [[], ['name'], ['nodes'], ['networks'], ['links'], ['defaults', 'cpu']];
  for (const node of doc.nodes)
    paths.push(['nodes', node.name], ['nodes', node.name, 'template'], ['nodes', node.name, 'position', 'x']);
  doc.links.forEach((_, i) => paths.push(['links', i, 'endpoints', 1]));
  const offsets: number[] = [];
  for (let offset = 0; offset <= doc.text.length; offset += 29) offsets.push(offset);
  return JSON.parse(
    JSON.stringify({
      text: doc.text,
      name: doc.name,
      description: doc.description,
      defaults: doc.defaults,
      nodes: doc.nodes,
      networks: doc.networks,
      links: doc.links,
      syntaxErrors: doc.syntaxErrors,
      formatIssues: doc.formatIssues,
      ranges: paths.map((path) => doc.rangeOfPath(path)),
      at: offsets.map((offset) => doc.pathAt(offset)),
    }),
  );
}
