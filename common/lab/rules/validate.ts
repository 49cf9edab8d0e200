/**
 * validateLab: the checks that need nothing but the document itself (the rules
 * are element-rules.ts), so the editor can run them on every edit. What only the
 * agent knows (templates, images, icons, network types, interface names) is
 * checked by the agent's validate, which reuses this diagnostic shape and its paths.
 *
 * An editor validates at every edit: LabChecks keeps what it found per node,
 * network and link (as read; see LabDocument.forEachAsRead) and which links use
 * each interface (counted: the links holding each), so that a version costs a
 * look at each element and the checks of those the edits re-read, not every
 * check again; and, in document order, the elements with findings, so that a
 * version that only replaced some items (LabDocument.replaced) costs the checks
 * of those and a move of the listed ones after them, not a look at each element.
 */
import { shiftRange } from '../parse/outline';
import { indexOfFirstStartingAtOrAfter } from '../model/pieces';
import {
  NONE,
  checkFields,
  checkLink,
  checkNetwork,
  checkNode,
  interfaceInUseFinding,
  interfaceKey,
  interfaceKeys,
  labNameFinding,
  syntaxFinding,
  DEFAULT_MESSAGE_EXAMPLES,
  type MessageExamples,
} from './element-rules';
import { validateTests } from './validate-tests';
import type {
  ElementKind,
  ElementOf,
  LabDocument,
  LocalDiagnostic,
  LabLink,
  LabNetwork,
  LabNode,
  Replaced,
} from '../model/types';

export type { LocalDiagnostic } from '../model/types';
export { DEFAULT_MESSAGE_EXAMPLES, type MessageExamples } from './element-rules';

export function validateLab(doc: LabDocument, examples?: MessageExamples): LocalDiagnostic[] {
  return validateLabUpTo(doc, Infinity, examples).shown;
}

/**
 * The first `limit` findings of validateLab, and how many there are in all.
 * A document whose syntax error spreads has tens of thousands; an editor shows
 * a capped number, so the others are only counted (syntax errors and format
 * issues without building them).
 */
export function validateLabUpTo(
  doc: LabDocument,
  limit: number,
  examples?: MessageExamples,
): { shown: LocalDiagnostic[]; total: number } {
  return new LabChecks(examples).check(doc, limit);
}

/** What the checks found on one element, as read (ranges before its delta, link indexes before their shift). */
interface Checked<E extends Element> {
  element: E;
  findings: readonly LocalDiagnostic[];
  /** The check run that last walked over the element. */
  seen: number;
  /** How to move its ranges and (links) its index in the last version checked: kept current while listed. */
  delta: number;
  indexShift: number;
  /** Whether it is in LabChecks.listed. */
  listed: boolean;
}

interface CheckedLink extends Checked<LabLink> {
  /** The node and network names its findings were made against (LabChecks.namesVersion). */
  namesVersion: number;
}

type Element = LabNode | LabNetwork | LabLink;
type CheckedOf = { nodes: Checked<LabNode>; networks: Checked<LabNetwork>; links: CheckedLink };
type Known = { [K in ElementKind]: Map<ElementOf[K], CheckedOf[K]> };
type Listed = Record<ElementKind, Checked<Element>[]>;

const KINDS = ['nodes', 'networks', 'links'] as const;
/** How many updates the checks follow from the version checked last, through versions still kept. */
const MAX_STEPS = 64;

/**
 * The checks of one document's successive versions (see the top of this
 * file). Findings equal validateLabUpTo's for every version; what it keeps
 * follows the elements of the last version checked.
 */
export class LabChecks {
  private run = 0;
  private readonly known: Known = { nodes: new Map(), networks: new Map(), links: new Map() };
  /**
   * Per kind, in document order, the elements of the last version checked
   * that have findings, and the links that use an interface used more than
   * once: nearly always few, so a version that only replaced some items
   * (LabDocument.replaced) updates these instead of visiting every element.
   */
  private listed: Listed = { nodes: [], networks: [], links: [] };
  /**
   * The links using each node interface (by interfaceKey), once per endpoint:
   * the link itself while it is the only one, as nearly every interface has.
   */
  private readonly holders = new Map<string, LabLink | LabLink[]>();
  /** The interfaces used more than once. */
  private readonly repeated = new Set<string>();
  /** Bumped whenever the node or network names change, or the names an unknown node's message suggests. */
  private namesVersion = 0;
  /** The version checked last, once its check completed: the one the lists follow. */
  private last?: LabDocument;

  constructor(private readonly examples: MessageExamples = DEFAULT_MESSAGE_EXAMPLES) {}

  check(doc: LabDocument, limit: number): { shown: LocalDiagnostic[]; total: number } {
    const last = this.last;
    this.last = undefined;
    const out = new Findings(limit);
    const syntax = doc.syntaxErrors;
    const built = Math.min(syntax.length, limit);
    for (let i = 0; i < built; i++) out.push(syntaxFinding(syntax[i]));
    out.uncounted += syntax.length - built;
    const issues = doc.formatIssues ?? [];
    const room = Math.max(0, Math.min(issues.length, limit - out.shown.length));
    for (let i = 0; i < room; i++) out.push({ ...issues[i], severity: 'error' });
    out.uncounted += issues.length - room;
    const nameFinding = labNameFinding(doc);
    if (nameFinding) out.push(nameFinding);
    const defaults: LocalDiagnostic[] = [];
    checkFields(doc.defaults, ['defaults'], defaults);
    out.pushAll(defaults, 0, 0);

    const steps = last && updatesBetween(last, doc);
    if (!steps || !this.replay(steps, doc)) this.walk(doc);
    for (const kind of KINDS) {
      const list = this.listed[kind];
      for (let i = 0; i < list.length; i++) out.pushAll(list[i].findings, list[i].delta, list[i].indexShift);
    }
    if (this.repeated.size > 0) this.reportInterfacesInUse(out);
    // Tests are few and read nodes by name: checked afresh at each version.
    out.pushAll(validateTests(doc), 0, 0);
    this.last = doc;
    return { shown: out.shown, total: out.shown.length + out.uncounted };
  }

  /**
   * Takes in `doc`, finding nothing, when the versions since the last one
   * checked only replaced items (see replay): for a version nobody reads the
   * findings of (a server skips versions while the client reads its last
   * publish), so that the next check still costs what its edits touched.
   * False, doing nothing, when `doc` would have to be walked.
   */
  follow(doc: LabDocument): boolean {
    const last = this.last;
    const steps = last && updatesBetween(last, doc);
    if (!steps) return false;
    this.last = undefined;
    if (!this.replay(steps, doc)) return false;
    this.last = doc;
    return true;
  }

  /** Visits every element of `doc`: checks those not met before, forgets those gone, and lists them anew. */
  private walk(doc: LabDocument): void {
    const run = ++this.run;
    const nodesRenamed = this.walkEach(doc, 'nodes', run, (node, found) => checkNode(node, found, this.examples));
    const networksRenamed = this.walkEach(doc, 'networks', run, checkNetwork);
    const nodes = doc.namesOf('nodes');
    const networks = doc.namesOf('networks');
    // Messages name the closest nodes: any change of names may change them.
    if (nodesRenamed || networksRenamed) this.namesVersion++;
    const known = this.known.links;
    const listed: CheckedLink[] = [];
    doc.forEachAsRead('links', (link, delta, indexShift) => {
      let checked = known.get(link);
      if (checked?.namesVersion !== this.namesVersion) {
        if (!checked) {
          checked = { element: link, findings: NONE, seen: run, namesVersion: -1, delta, indexShift, listed: false };
          known.set(link, checked);
          this.holdAll(link);
        }
        checked.findings = checkLink(link, nodes, networks, this.examples);
        checked.namesVersion = this.namesVersion;
      }
      checked.seen = run;
      checked.delta = delta;
      checked.indexShift = indexShift;
      checked.listed = checked.findings.length > 0;
      if (checked.listed) listed.push(checked);
    });
    // forEach, not for-of: destructuring each entry would make two arrays per link at every version.
    known.forEach((checked, link) => {
      if (checked.seen === run) return;
      known.delete(link);
      this.releaseAll(link);
    });
    let more = false;
    for (const key of this.repeated)
      for (const link of holdersOf(this.holders.get(key))) {
        const checked = known.get(link);
        if (!checked || checked.listed) continue;
        checked.listed = more = true;
        listed.push(checked);
      }
    if (more) listed.sort((a, b) => placeOf(a) - placeOf(b));
    this.listed.links = listed;
  }

  /**
   * Visits the nodes or networks of `doc`, checking those not met before and
   * listing those with findings; forgets those gone. Whether the names changed:
   * names met or gone, unless they merely came back (an element re-read with its name unchanged).
   */
  private walkEach<K extends 'nodes' | 'networks'>(
    doc: LabDocument,
    kind: K,
    run: number,
    check: (element: ElementOf[K], out: LocalDiagnostic[]) => void,
  ): boolean {
    const known = this.known[kind] as Map<ElementOf[K], Checked<ElementOf[K]>>;
    const listed: Checked<ElementOf[K]>[] = [];
    const met: string[] = [];
    doc.forEachAsRead(kind, (element, delta) => {
      let checked = known.get(element);
      if (!checked) {
        checked = checkedElement(element, check, run, delta);
        known.set(element, checked);
        met.push(element.name);
      }
      checked.seen = run;
      checked.delta = delta;
      if (checked.listed) listed.push(checked);
    });
    this.listed[kind] = listed;
    const gone: string[] = [];
    known.forEach((checked, element) => {
      if (checked.seen === run) return;
      known.delete(element);
      gone.push(element.name);
    });
    if (met.length === 0 && gone.length === 0) return false;
    met.sort();
    gone.sort();
    return met.length !== gone.length || met.some((name, i) => name !== gone[i]);
  }

  /**
   * Follows `steps` (see updatesBetween) from the last version checked to
   * `doc` without visiting every element; false when what is kept does not
   * fit a step, and `doc` must be walked.
   */
  private replay(steps: readonly Replaced[], doc: LabDocument): boolean {
    for (const step of steps) {
      // Where the removed elements' entries are, looked up before anything changes.
      const nodeCut = this.cut('nodes', step);
      const networkCut = this.cut('networks', step);
      const linkCut = this.cut('links', step);
      if (!nodeCut || !networkCut || !linkCut) return false;
      this.replaceEach('nodes', step, nodeCut, (node, found) => checkNode(node, found, this.examples));
      this.replaceEach('networks', step, networkCut, checkNetwork);
      if (!this.replaceLinks(doc, step, linkCut)) return false;
    }
    return true;
  }

  /**
   * Where the listed ones among the elements of `kind` that `step` removed are
   * in the list: consecutive, from the first listed at or after the step's
   * start. Undefined when they are not, or when what the step names is not as
   * kept (a removed element unknown, an added one already known).
   */
  private cut(kind: ElementKind, step: Replaced): Cut | undefined {
    const known = this.known[kind] as Map<Element, Checked<Element>>;
    const removed = step.removed[kind];
    const going = new Set<Element>();
    let count = 0;
    for (let i = 0; i < removed.length; i++) {
      const checked = known.get(removed[i].element);
      if (!checked) return undefined;
      going.add(checked.element);
      if (checked.listed) count++;
    }
    const added = step.added[kind];
    for (let i = 0; i < added.length; i++)
      if (known.has(added[i].element) && !going.has(added[i].element)) return undefined;
    const list = this.listed[kind];
    const first = indexOfFirstStartingAtOrAfter(list, step.start, placeOf);
    for (let i = first; i < first + count; i++) if (i >= list.length || !going.has(list[i].element)) return undefined;
    return { first, count };
  }

  /** The nodes or networks `step` added checked and listed in place of those it removed. */
  private replaceEach<K extends 'nodes' | 'networks'>(
    kind: K,
    step: Replaced,
    cut: Cut,
    check: (element: ElementOf[K], out: LocalDiagnostic[]) => void,
  ): void {
    const known = this.known[kind] as Map<ElementOf[K], Checked<ElementOf[K]>>;
    const removed = step.removed[kind];
    for (let i = 0; i < removed.length; i++) known.delete(removed[i].element);
    const added = step.added[kind];
    const entries: Checked<ElementOf[K]>[] = [];
    for (let i = 0; i < added.length; i++) {
      const checked = checkedElement(added[i].element, check, this.run, added[i].delta);
      known.set(checked.element, checked);
      if (checked.listed) entries.push(checked);
    }
    this.splice(kind, step, cut, entries);
  }

  /**
   * The links `step` added checked, held and listed in place of those it
   * removed; false when an interface one of them uses is also used by a link
   * not listed, whose place is not kept.
   */
  private replaceLinks(doc: LabDocument, step: Replaced, cut: Cut): boolean {
    const known = this.known.links;
    const nodes = doc.namesOf('nodes');
    const networks = doc.namesOf('networks');
    const added = step.added.links;
    const made: CheckedLink[] = [];
    // Held before the removed ones are released, so that a link re-read keeps its interfaces' other holders listed.
    for (let i = 0; i < added.length; i++) {
      const { element: link, delta, indexShift } = added[i];
      const findings = checkLink(link, nodes, networks, this.examples);
      made.push({
        element: link,
        findings,
        seen: this.run,
        namesVersion: this.namesVersion,
        delta,
        indexShift,
        listed: false,
      });
      this.holdAll(link);
    }
    const removed = step.removed.links;
    for (let i = 0; i < removed.length; i++) {
      known.delete(removed[i].element);
      this.releaseAll(removed[i].element);
    }
    const entries: CheckedLink[] = [];
    let unplaced = false;
    for (const checked of made) {
      known.set(checked.element, checked);
      const keys = interfaceKeys(checked.element);
      let repeats = false;
      for (let k = 0; k < keys.length; k++) {
        if (!this.repeated.has(keys[k])) continue;
        repeats = true;
        for (const holder of holdersOf(this.holders.get(keys[k])))
          if (!known.get(holder)?.listed && !made.some((other) => other.element === holder)) unplaced = true;
      }
      checked.listed = checked.findings.length > 0 || repeats;
      if (checked.listed) entries.push(checked);
    }
    if (unplaced) return false;
    this.splice('links', step, cut, entries);
    return true;
  }

  /** The list of `kind` with the entries `cut` gave way to `entries`, and those after moved as `step` moved them. */
  private splice(kind: ElementKind, step: Replaced, cut: Cut, entries: readonly Checked<Element>[]): void {
    const list = this.listed[kind];
    if (list.length === 0 && entries.length === 0) return;
    const next = list.slice(0, cut.first);
    for (let i = 0; i < entries.length; i++) next.push(entries[i]);
    for (let i = cut.first + cut.count; i < list.length; i++) {
      const checked = list[i];
      checked.delta += step.delta;
      if (kind === 'links' && placeOf(checked) < step.renumberEnd) checked.indexShift += step.linkDelta;
      next.push(checked);
    }
    this.listed[kind] = next;
  }

  private holdAll(link: LabLink): void {
    const keys = interfaceKeys(link);
    for (let i = 0; i < keys.length; i++) this.hold(keys[i], link);
  }

  /** A link as read never changes, so its keys are those it was held under. */
  private releaseAll(link: LabLink): void {
    const keys = interfaceKeys(link);
    for (let i = 0; i < keys.length; i++) this.release(keys[i], link);
  }

  private hold(key: string, link: LabLink): void {
    const holders = this.holders.get(key);
    if (!holders) this.holders.set(key, link);
    else if (!Array.isArray(holders)) {
      this.holders.set(key, [holders, link]);
      this.repeated.add(key);
    } else holders.push(link);
  }

  private release(key: string, link: LabLink): void {
    const holders = this.holders.get(key);
    if (!Array.isArray(holders)) {
      if (holders === link) this.holders.delete(key);
      return;
    }
    holders.splice(holders.indexOf(link), 1);
    if (holders.length > 1) return;
    this.holders.set(key, holders[0]);
    this.repeated.delete(key);
  }

  /** Every use of each interface used more than once, those of the interface used first first, in link order. */
  private reportInterfacesInUse(out: Findings): void {
    const lists: Use[][] = [];
    for (const key of this.repeated) {
      const list: Use[] = [];
      // Repeated keys are held by several links, or by one link twice.
      for (const link of new Set(holdersOf(this.holders.get(key)))) {
        const checked = this.known.links.get(link);
        if (!checked) continue;
        link.endpoints.forEach((endpoint, index) => {
          if (interfaceKey(endpoint) === key) list.push({ key, link, index, checked });
        });
      }
      list.sort(inLinkOrder);
      lists.push(list);
    }
    lists.sort((a, b) => inLinkOrder(a[0], b[0]));
    for (const list of lists) {
      for (const use of list) {
        const others = list.filter((other) => other.link !== use.link).map((other) => other.link);
        const finding = interfaceInUseFinding(use.key, use.link, use.index, others);
        out.push(moved(finding, use.checked.delta, use.checked.indexShift));
      }
    }
  }
}

/** Where the entries of the elements a step removed are in a list: from `first`, `count` of them. */
interface Cut {
  first: number;
  count: number;
}

/**
 * The updates that made `doc` from `last`, oldest first, when each replaced
 * items only (LabDocument.replaced) and the versions between are still kept
 * (the server may skip versions while edits come faster than it checks).
 */
function updatesBetween(last: LabDocument, doc: LabDocument): Replaced[] | undefined {
  const steps: Replaced[] = [];
  for (let version = doc; version !== last;) {
    const replaced = version.replaced;
    const before = replaced?.from.deref();
    if (!replaced || !before || steps.length === MAX_STEPS) return undefined;
    steps.push(replaced);
    version = before;
  }
  return steps.reverse();
}

function checkedElement<E extends LabNode | LabNetwork>(
  element: E,
  check: (element: E, out: LocalDiagnostic[]) => void,
  run: number,
  delta: number,
): Checked<E> {
  const findings: LocalDiagnostic[] = [];
  check(element, findings);
  const listed = findings.length > 0;
  return { element, findings: listed ? findings : NONE, seen: run, delta, indexShift: 0, listed };
}

function holdersOf(holders: LabLink | LabLink[] | undefined): readonly LabLink[] {
  return holders === undefined ? [] : Array.isArray(holders) ? holders : [holders];
}

/** Where an element starts in the last version checked. */
function placeOf(checked: Checked<Element>): number {
  return checked.element.range.start + checked.delta;
}

function inLinkOrder(a: Use, b: Use): number {
  return placeOf(a.checked) - placeOf(b.checked) || a.index - b.index;
}

/** Findings kept up to a limit, the others counted. */
class Findings {
  readonly shown: LocalDiagnostic[] = [];
  uncounted = 0;

  constructor(private readonly limit: number) {}

  push(finding: LocalDiagnostic): void {
    if (this.shown.length < this.limit) this.shown.push(finding);
    else this.uncounted++;
  }

  /** Findings as read, moved by `delta`, their link indexes by `indexShift`. */
  pushAll(findings: readonly LocalDiagnostic[], delta: number, indexShift: number): void {
    for (let i = 0; i < findings.length; i++) {
      const finding = findings[i];
      if (this.shown.length >= this.limit) {
        this.uncounted += findings.length - i;
        return;
      }
      this.shown.push(delta === 0 && indexShift === 0 ? finding : moved(finding, delta, indexShift));
    }
  }
}

function moved(finding: LocalDiagnostic, delta: number, indexShift: number): LocalDiagnostic {
  const result = { ...finding, range: shiftRange(finding.range, delta) };
  const path = finding.path;
  if (indexShift !== 0 && path && path[0] === 'links' && typeof path[1] === 'number')
    result.path = ['links', path[1] + indexShift, ...path.slice(2)];
  return result;
}

/** Where a node interface is used. */
interface Use {
  key: string;
  link: LabLink;
  index: number;
  checked: CheckedLink;
}
