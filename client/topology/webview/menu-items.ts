/** What the context menu offers for an element of the drawing or the list. */
import type { GraphReplica } from '../graph-delta';
import type { NodeAction, WebviewMessage } from '../messages';
import type { MenuItem } from './menu';

const NODE_ACTION_LABELS: Record<NodeAction, string> = {
  start: 'Start',
  stop: 'Stop…',
  wipe: 'Wipe',
  console: 'Open Console',
  consoleExec: 'Run a Command…',
};

export function menuItems(
  id: string,
  replica: GraphReplica,
  post: (message: WebviewMessage) => void,
  startLink: (from: string) => void,
): MenuItem[] {
  const node = replica.node(id);
  if (node) {
    const items: MenuItem[] = [{ label: 'Show in the Lab File', run: () => post({ type: 'reveal', id }) }];
    if (node.kind === 'node') {
      const why = node.liveOnly
        ? 'Only the live lab has this node.'
        : 'Not available now: the lab must be deployed, the node in a suitable state, and you logged in.';
      for (const action of Object.keys(NODE_ACTION_LABELS) as NodeAction[]) {
        items.push({
          label: NODE_ACTION_LABELS[action],
          ...(node.actions.includes(action) ? {} : { disabled: why }),
          run: () => post({ type: 'nodeAction', action, node: node.name }),
        });
      }
    }
    items.push({
      label: 'Draw a Link from Here…',
      ...(node.liveOnly ? { disabled: 'Only the live lab has this node.' } : {}),
      run: () => startLink(id),
    });
    return items;
  }
  const link = replica.link(id);
  if (!link) return [];
  const index = link.index;
  const missing = index === undefined ? { disabled: 'Only the live lab has this link.' } : {};
  const items: MenuItem[] = [
    {
      label: 'Show Both Endpoints',
      ...missing,
      run: () => index !== undefined && post({ type: 'revealEndpoints', index }),
    },
    { label: 'Delete Link', ...missing, run: () => index !== undefined && post({ type: 'deleteLink', index }) },
  ];
  // Absent when the agent cannot capture: the items are not offered at all.
  const capture = link.capture;
  if (capture) {
    const why = capture.disabled === undefined ? {} : { disabled: capture.disabled };
    items.push(
      {
        label: `Capture Packets on ${capture.target}`,
        ...why,
        run: () => post({ type: 'capture', target: capture.target, others: false }),
      },
      {
        label: 'Capture with Other Links…',
        ...why,
        run: () => post({ type: 'capture', target: capture.target, others: true }),
      },
    );
  }
  return items;
}
