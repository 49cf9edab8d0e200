/** Rows of the Consoles view: the consoles of each deployed lab (listProjectConsoles). */
import type { CapabilitiesData, ConsolesData } from '../../common/api/contract';
import { isLabActionAllowed, type ProjectMode } from './capabilities';
import type { LabRowData } from './lab-rows';
import type { TreeRow } from './tree-row';

export function consoleRows(
  lab: { uri: string; mode: ProjectMode },
  data: ConsolesData,
  caps: CapabilitiesData | undefined,
): TreeRow<LabRowData>[] {
  const canAttach = isLabActionAllowed(caps, 'consoleAttach', lab.mode);
  const canExec = isLabActionAllowed(caps, 'consoleExec', lab.mode);
  return (data.consoles ?? [])
    .filter((c): c is typeof c & { node: string } => typeof c.node === 'string' && c.node !== '')
    .map((c) => {
      const attachable = c.attachable !== false && c.state === 'running';
      const context = ['console'];
      if (attachable && canAttach) context.push('attach');
      if (attachable && canExec) context.push('consoleExec');
      return {
        id: `${lab.uri}#console:${c.node}`,
        label: c.node,
        description: [c.console_type, c.state, attachable ? undefined : 'not attachable'].filter(Boolean).join(' · '),
        tooltip: [
          `Console of ${c.node}${c.name && c.name !== c.node ? ` (${c.name})` : ''}`,
          c.console_type ? `Type: ${c.console_type}` : undefined,
          c.url ? `Emulator address: ${c.url}` : undefined,
          attachable ? 'Click to open it in a terminal.' : 'Start the node to attach to its console.',
        ]
          .filter(Boolean)
          .join('\n'),
        icon: 'terminal',
        iconColor: attachable ? undefined : 'disabledForeground',
        contextValue: context.join(' '),
        collapsible: 'none',
        data: { uri: lab.uri, node: c.node },
      };
    });
}

/** Whether a console's node is starting or stopping: the view follows it until it settles. */
export function consolesSettling(data: ConsolesData): boolean {
  return (data.consoles ?? []).some((c) => c.state === 'starting' || c.state === 'stopping');
}
