/**
 * What the extension host and the topology webview say to each other, and the
 * drawing they share. This module has no runtime code and no `vscode` import:
 * the webview bundle (client/topology/webview/) compiles against it too.
 */

/** How the to_emu plan would touch an element. */
export type Drift = 'create' | 'update' | 'delete';

/** The symbol drawn for a node: from its icon, else its template. */
export type NodeSymbol = 'router' | 'switch' | 'server' | 'host' | 'firewall' | 'generic' | 'cloud';

/** What the context menu may offer for a node, as the Labs view decides it for its rows. */
export type NodeAction = 'start' | 'stop' | 'wipe' | 'console' | 'consoleExec';

export interface GraphNode {
  /** `node:<name>` for nodes, `network:<name>` for networks. */
  id: string;
  kind: 'node' | 'network';
  name: string;
  symbol: NodeSymbol;
  /** The template, or the network type. */
  detail: string;
  /** Where the document places it; absent: laid out automatically. */
  position?: { x: number; y: number };
  /** The live state (running, stopped, …; `missing`: deployed lab without it); absent when not known. */
  state?: string;
  drift?: Drift;
  /** Only the live lab has it (it is not in the document). */
  liveOnly?: boolean;
  actions: NodeAction[];
}

export interface GraphLink {
  /** `link:<index>` for links of the document, `live-link:<name>` for links only the live lab has. */
  id: string;
  /** Position in the document's `links` list; absent for live-only links. */
  index?: number;
  source: string;
  target: string;
  /** The interface at each end (empty at a network). */
  sourceLabel: string;
  targetLabel: string;
  drift?: Drift;
  /** Offered only when the agent can capture (decisions §14): the end captured, and why not now. */
  capture?: { target: string; disabled?: string };
}

export interface GraphData {
  /** The lab's name, for the title and the element list. */
  title: string;
  nodes: GraphNode[];
  links: GraphLink[];
  /** Plain sentences about what could not be drawn or known, shown above the drawing. */
  notes: string[];
  /** One line about the live lab: its state, or why it is not known. */
  liveSummary: string;
}

/** Replaces `deleteCount` ids from `start` of an id order with `insert`: the part of the order that changed. */
export interface Splice {
  start: number;
  deleteCount: number;
  insert: string[];
}

/** What changed between two drawings (graph-delta.ts makes and applies it). */
export interface GraphDelta {
  /** The nodes' order, where it changed. */
  nodeOrder?: Splice;
  linkOrder?: Splice;
  /** Elements new or changed, whole. Those gone are the ids an order's splice removes. */
  nodes: GraphNode[];
  links: GraphLink[];
  title?: string;
  notes?: string[];
  liveSummary?: string;
}

/** Host → webview. */
export type HostMessage =
  /** The whole drawing; `version` numbers the drawings sent, for the deltas that follow. */
  | { type: 'graph'; version: number; graph: GraphData }
  /** What changed from drawing `base` (the last one sent) to drawing `version` (graph-delta.ts). */
  | { type: 'graphDelta'; base: number; version: number; delta: GraphDelta }
  /** The elements the editor's cursor is in (empty: none). */
  | { type: 'highlight'; ids: string[] }
  /** Ends link drawing (an edit was made or refused). */
  | { type: 'linkDone' };

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  /** A delta came from a drawing the webview does not have: send the whole drawing. */
  | { type: 'resync' }
  /** Show the element in the YAML editor. */
  | { type: 'reveal'; id: string }
  /** A node was dropped at a new place. */
  | { type: 'move'; node: string; x: number; y: number }
  | { type: 'nodeAction'; action: NodeAction; node: string }
  /** Draw a link between two elements (node or network ids); the host asks for the interfaces. */
  | { type: 'addLink'; from: string; to: string }
  | { type: 'deleteLink'; index: number }
  /** Select both ends of a link in the YAML. */
  | { type: 'revealEndpoints'; index: number }
  /** Capture on a link's end; `others`: pick more links to merge into the same timeline. */
  | { type: 'capture'; target: string; others: boolean };
