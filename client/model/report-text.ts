/**
 * Plain-text reports of a live lab (status, inspect, open), shown in read-only
 * documents. Column-aligned so they read well in an editor and diff well when
 * copied into a ticket.
 */
import type { InspectionData, OpenData, ProjectStatusData, ValidateData } from '../../common/api/contract';

function table(header: string[], rows: (string | number | undefined)[][]): string[] {
  const cells = [header, ...rows.map((r) => r.map((c) => (c === undefined || c === '' ? '-' : String(c))))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

function notDeployed(labName: string, lab: string | undefined): string {
  return `${labName}: not deployed${lab ? ` (emulator lab ${lab} does not exist)` : ''}.\n`;
}

export function renderStatus(data: ProjectStatusData, labName: string): string {
  if (data.exists === false) return notDeployed(labName, data.lab);
  const lines = [
    `Status of ${labName}`,
    `Lab:     ${data.lab ?? '(unknown)'}`,
    `State:   ${data.state ?? '(unknown)'}${data.locked === true ? ' (locked)' : ''}`,
    `Running: ${data.running ?? 0} of ${data.total ?? data.nodes?.length ?? 0} nodes`,
    '',
    ...table(
      ['NODE', 'ID', 'STATE', 'TEMPLATE', 'IMAGE', 'CONSOLE'],
      (data.nodes ?? []).map((n) => [n.name, n.id, n.state, n.template, n.image, n.console]),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

export function renderInspection(data: InspectionData, labName: string): string {
  if (data.exists === false) return notDeployed(labName, data.lab);
  const lines = [
    `Live lab ${labName} as the emulator sees it`,
    `Lab:      ${data.lab ?? '(unknown)'}`,
    `Observed: ${data.observed_at ?? '(unknown)'}${data.cached === true ? ' (cached; use Refresh for a fresh look)' : ''}`,
    '',
    'Nodes:',
    ...table(
      ['NODE', 'ID', 'STATE', 'TEMPLATE', 'IMAGE', 'CPU', 'RAM', 'ETH', 'ICON'],
      (data.nodes ?? []).map((n) => [n.name, n.id, n.state, n.template, n.image, n.cpu, n.ram, n.ethernet, n.icon]),
    ).map((l) => `  ${l}`),
  ];
  const interfaces = (data.nodes ?? []).flatMap((n) =>
    (n.interfaces ?? []).map((i) => [n.name, i.name, i.index, i.network, i.peer] as (string | number | undefined)[]),
  );
  if (interfaces.length > 0) {
    lines.push(
      '',
      'Interfaces:',
      ...table(['NODE', 'INTERFACE', 'INDEX', 'NETWORK', 'PEER'], interfaces).map((l) => `  ${l}`),
    );
  }
  if ((data.networks ?? []).length > 0) {
    lines.push(
      '',
      'Networks:',
      ...table(
        ['NETWORK', 'TYPE', 'ID'],
        (data.networks ?? []).map((n) => [n.name, n.type, n.id]),
      ).map((l) => `  ${l}`),
    );
  }
  if ((data.links ?? []).length > 0) {
    lines.push('', 'Links:', ...(data.links ?? []).map((l) => `  ${l.a ?? '?'} -- ${l.b ?? '?'}`));
  }
  return `${lines.join('\n')}\n`;
}

export function renderOpen(data: OpenData, labName: string): string {
  if (data.exists === false) return notDeployed(labName, data.lab);
  const lines = [
    `${data.name ?? labName} in the emulator`,
    `Lab: ${data.lab ?? '(unknown)'}`,
    `Web: ${data.url ?? '(the agent gave no address)'}`,
    '',
    ...table(
      ['NODE', 'ID', 'STATE', 'TEMPLATE', 'CONSOLE'],
      (data.nodes ?? []).map((n) => [n.name, n.id, n.state, n.template, n.console]),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** The validate diagnostics, one per line, with where they are in the document. */
export function validationLines(data: ValidateData): string[] {
  return (data.diagnostics ?? []).map((d) => {
    const where = d.path && d.path.length > 0 ? d.path.join('.') : '(document)';
    return `${d.severity ?? 'error'}: ${where}: ${d.message ?? '(no message)'}${d.code ? ` [${d.code}]` : ''}`;
  });
}
