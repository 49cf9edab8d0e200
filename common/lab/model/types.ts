import type { CheckKind } from '../rules/test-checks';

/**
 * The lab document model: what a `*.lab.yaml` file says, with every piece mapped
 * back to its source range. The format is documented in docs/lab-format.md.
 *
 * parseLab() (common/lab/parse.ts) builds a LabDocument and never throws: a
 * half-typed document yields whatever could be read plus syntax errors.
 */

/** Half-open range of character offsets into the document text. */
export interface Range {
  start: number;
  end: number;
}

/** A scalar value read from the document, with where it was written. */
export interface Located<T> {
  value: T;
  /** The value's range. */
  range: Range;
  /** The range of the key that introduced it (the value range when there is no key). */
  keyRange: Range;
}

/** The node fields of the format; every one of them can also appear under `defaults`. */
export interface NodeFields {
  template?: Located<string>;
  image?: Located<string>;
  icon?: Located<string>;
  cpu?: Located<number>;
  ram?: Located<number>;
  ethernet?: Located<number>;
  console?: Located<string>;
  config?: Located<string>;
  position?: Located<{ x: number; y: number }>;
}
export type NodeFieldName = keyof NodeFields;
export const NODE_FIELD_NAMES: readonly NodeFieldName[] = [
  'template',
  'image',
  'icon',
  'cpu',
  'ram',
  'ethernet',
  'console',
  'config',
  'position',
];

/** Plain values of a node after `defaults` are applied (the node's own fields win). */
export interface ResolvedNode {
  template?: string;
  image?: string;
  icon?: string;
  cpu?: number;
  ram?: number;
  ethernet?: number;
  console?: string;
  config?: string;
  position?: { x: number; y: number };
}

export interface LabNode {
  name: string;
  /** The node's key under `nodes`. */
  nameRange: Range;
  /** The whole entry, key through value. */
  range: Range;
  /** Fields written on the node itself (defaults not applied). */
  fields: NodeFields;
  resolved: ResolvedNode;
}

export interface LabNetwork {
  name: string;
  nameRange: Range;
  range: Range;
  type?: Located<string>;
}

/** One end of a link: `node:interface` or a network name. */
export interface LinkEndpoint {
  /** The text as written, e.g. "r1:Gi0/0" or "mgmt". */
  text: string;
  range: Range;
  /** Set for `node:interface` endpoints (also while the interface is still empty). */
  node?: string;
  nodeRange?: Range;
  interface?: string;
  interfaceRange?: Range;
  /** Set for an endpoint without a colon: the name of a network. */
  network?: string;
}

export interface LabLink {
  /** Position in the `links` list. */
  index: number;
  range: Range;
  endpoints: LinkEndpoint[];
}

/** One check of a test: `ping: {from: h1, to: h2}` (common/lab/test-checks.ts lists the kinds). */
export interface LabCheck {
  kind: CheckKind;
  /** The check's key (`ping`). */
  keyRange: Range;
  /** Key through value. */
  range: Range;
  /** The settings as written that fit the check (text or whole numbers). */
  params: Record<string, Located<string | number>>;
}

/** An entry of `tests:`: its name and one check. */
export interface LabTest {
  name: string;
  nameRange: Range;
  range: Range;
  /** Absent when the test names no check it can read (an issue says why). */
  check?: LabCheck;
  /** Seconds the check retries; absent: DEFAULT_TEST_TIMEOUT_S. */
  timeout?: Located<number>;
}

/** Why a line was set aside (parse/yaml-text.ts). */
export type SetAsideCode =
  | 'tab-indentation'
  | 'unclosed-quote'
  | 'stray-bracket'
  | 'unclosed-inner-bracket'
  | 'text-after-value'
  | 'key-without-colon'
  | 'list-item-among-keys'
  | 'key-among-list-items';

export interface SyntaxError {
  message: string;
  range: Range;
  /** A line set aside (its range: the whole line); other syntax errors have none. */
  code?: SetAsideCode;
}

/**
 * A place where the document departs from the shape of the format, found while
 * reading it: an unknown key, a value of the wrong type, a key written twice,
 * an endpoint that is neither `node:interface` nor a network name. The value
 * is left out of the model; validateLab reports the issue.
 */
export interface FormatIssue {
  message: string;
  range: Range;
  /** Stable machine code, e.g. `unknown-key`, `wrong-type`, `duplicate-key`. */
  code: string;
  /** Keys and list indexes from the root to the offending key or value. */
  path: (string | number)[];
}

/** What an offset is on: the path to it and whether it is a key or a value. */
export interface PathAt {
  path: (string | number)[];
  /** 'key' on a map key; 'value' on a value or a list item (also an empty one, just after `key:`). */
  on: 'key' | 'value';
  /** The range of that key or value (key through colon when the value is empty). */
  range: Range;
}

export interface LabDocument {
  text: string;
  name?: Located<string>;
  description?: Located<string>;
  defaults: NodeFields;
  nodes: LabNode[];
  networks: LabNetwork[];
  links: LabLink[];
  /** The `tests:` entries, in document order (the first of a repeated name only). */
  tests: LabTest[];
  syntaxErrors: SyntaxError[];
  formatIssues: FormatIssue[];
  /**
   * The range of the value at a path of keys and list indexes from the root
   * (as the agent's validate diagnostics give it), or of its closest existing
   * ancestor; undefined only for an empty document.
   */
  rangeOfPath(path: readonly (string | number)[]): Range | undefined;
  /** The innermost key or value at an offset (ends inclusive, so a cursor just after `r1:` counts). */
  pathAt(offset: number): PathAt | undefined;
  /**
   * The nodes, networks or links as `nodes`, `networks` or `links` list them,
   * without making them: each as it was read, with the `delta` to add to its
   * ranges (for links also the `indexShift` to add to its index). For checks
   * that run at every edit and build something for few elements: after an
   * edit, the lists copy every element the edit moved.
   */
  forEachAsRead<K extends ElementKind>(
    kind: K,
    visit: (element: ElementOf[K], delta: number, indexShift: number) => void,
  ): void;
  /** How many elements forEachAsRead visits, without visiting them. */
  countAsRead(kind: ElementKind): number;
  /**
   * The `n`-th (from 0) element forEachAsRead visits, or undefined past the
   * last; found without visiting those before it (nearly always).
   */
  elementAsRead<K extends ElementKind>(kind: K, n: number): Placed<K> | undefined;
  /** The names of the nodes or of the networks, as a set. */
  namesOf(kind: 'nodes' | 'networks'): ReadonlySet<string>;
  /**
   * What the update that made this version replaced in the version before,
   * when that is all it changed: items of counting sections, naming what they
   * named (see census.ts). For checks that follow a document's versions.
   * Undefined after a full parse or any other update.
   */
  readonly replaced?: Replaced;
}

/**
 * The elements an update removed from `from` and added (each as forEachAsRead
 * gives it), at the text [start, end) of `from`; the text after `end` moved
 * by `delta`, and link indexes there, before `renumberEnd` (an offset in this
 * version), by `linkDelta`. Nothing else changed.
 */
export interface Replaced {
  from: WeakRef<LabDocument>;
  start: number;
  end: number;
  delta: number;
  linkDelta: number;
  renumberEnd: number;
  removed: PlacedElements;
  added: PlacedElements;
}

/** An element as read, with the delta to add to its ranges and, for a link, the shift to add to its index. */
export interface Placed<K extends ElementKind> {
  element: ElementOf[K];
  delta: number;
  indexShift: number;
}

export type PlacedElements = { [K in ElementKind]: Placed<K>[] };

export interface ElementOf {
  nodes: LabNode;
  networks: LabNetwork;
  links: LabLink;
}
export type ElementKind = keyof ElementOf;

/** A finding of the checks (validate.ts, validate-tests.ts), also the shape of the agent's validate diagnostics. */
export interface LocalDiagnostic {
  range: Range;
  message: string;
  severity: 'error' | 'warning';
  /** Stable machine code, e.g. `unknown-node`; docs/lab-format.md lists them. */
  code: string;
  /** Keys and list indexes from the document root to the offending value. */
  path?: (string | number)[];
}

/** An edit of a document's text: the characters [start, end) are replaced by `text`. */
export interface TextChange {
  start: number;
  end: number;
  text: string;
}
