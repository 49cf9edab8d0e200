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
 * check again.
 */
import { shiftRange } from '../parse/outline';
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
import type { ElementOf, LabDocument, LocalDiagnostic, LabLink, LabNetwork, LabNode } from '../model/types';

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
interface Checked {
  findings: readonly LocalDiagnostic[];
  /** The check run that last met the element. */
  seen: number;
}

interface CheckedLink extends Checked {
  /** The node and network names its findings were made against (LabChecks.namesVersion). */
  namesVersion: number;
  /** Where it was in the last version checked: its place among the links, and how to move its ranges and index. */
  order: number;
  delta: number;
  indexShift: number;
}

/**
 * The checks of one document's successive versions (see the top of this
 * file). Findings equal validateLabUpTo's for every version; what it keeps
 * follows the elements of the last version checked.
 */
export class LabChecks {
  private run = 0;
  private readonly nodes = new Map<LabNode, Checked>();
  private readonly networks = new Map<LabNetwork, Checked>();
  private readonly links = new Map<LabLink, CheckedLink>();
  /**
   * The links using each node interface (by interfaceKey), once per endpoint:
   * the link itself while it is the only one, as nearly every interface has.
   */
  private readonly holders = new Map<string, LabLink | LabLink[]>();
  /** The interfaces used more than once. */
  private readonly repeated = new Set<string>();
  /** Bumped whenever the node or network names change, or the names an unknown node's message suggests. */
  private namesVersion = 0;

  constructor(private readonly examples: MessageExamples = DEFAULT_MESSAGE_EXAMPLES) {}

  check(doc: LabDocument, limit: number): { shown: LocalDiagnostic[]; total: number } {
    const run = ++this.run;
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

    const renamed: string[] = [];
    this.checkEach(doc, 'nodes', this.nodes, run, renamed, (node, found) => checkNode(node, found, this.examples), out);
    this.checkEach(doc, 'networks', this.networks, run, renamed, checkNetwork, out);
    const nodes = doc.namesOf('nodes');
    const networks = doc.namesOf('networks');
    // Messages name the closest nodes: any change of names may change them.
    if (renamed.length > 0) this.namesVersion++;
    let order = 0;
    doc.forEachAsRead('links', (link, delta, indexShift) => {
      let checked = this.links.get(link);
      if (checked?.namesVersion !== this.namesVersion) {
        if (!checked) {
          checked = { findings: NONE, seen: run, namesVersion: -1, order, delta, indexShift };
          this.links.set(link, checked);
          const keys = interfaceKeys(link);
          for (let i = 0; i < keys.length; i++) this.hold(keys[i], link);
        }
        checked.findings = checkLink(link, nodes, networks, this.examples);
        checked.namesVersion = this.namesVersion;
      }
      checked.seen = run;
      checked.order = order++;
      checked.delta = delta;
      checked.indexShift = indexShift;
      out.pushAll(checked.findings, delta, indexShift);
    });
    // forEach, not for-of: destructuring each entry would make two arrays per link at every version.
    this.links.forEach((checked, link) => {
      if (checked.seen === run) return;
      this.links.delete(link);
      // A link as read never changes, so its keys are those it was held under.
      const keys = interfaceKeys(link);
      for (let i = 0; i < keys.length; i++) this.release(keys[i], link);
    });
    if (this.repeated.size > 0) this.reportInterfacesInUse(out);
    // Tests are few and read nodes by name: checked afresh at each version.
    out.pushAll(validateTests(doc), 0, 0);
    return { shown: out.shown, total: out.shown.length + out.uncounted };
  }

  /**
   * Reports the nodes or networks of `doc` with what was found on each, checking
   * those not met before; forgets those gone. Names met or gone go to `renamed`,
   * unless they merely came back (an element re-read with its name unchanged).
   */
  private checkEach<K extends 'nodes' | 'networks'>(
    doc: LabDocument,
    kind: K,
    known: Map<ElementOf[K], Checked>,
    run: number,
    renamed: string[],
    check: (element: ElementOf[K], out: LocalDiagnostic[]) => void,
    out: Findings,
  ): void {
    const met: string[] = [];
    doc.forEachAsRead(kind, (element, delta) => {
      let checked = known.get(element);
      if (!checked) {
        const findings: LocalDiagnostic[] = [];
        check(element, findings);
        checked = { findings: findings.length > 0 ? findings : NONE, seen: run };
        known.set(element, checked);
        met.push(element.name);
      }
      checked.seen = run;
      out.pushAll(checked.findings, delta, 0);
    });
    const gone: string[] = [];
    known.forEach((checked, element) => {
      if (checked.seen === run) return;
      known.delete(element);
      gone.push(element.name);
    });
    if (met.length === 0 && gone.length === 0) return;
    met.sort();
    gone.sort();
    // A loop, not push(...met, ...gone): spread arguments overflow the stack past about 120,000 names.
    if (met.length !== gone.length || met.some((name, i) => name !== gone[i]))
      for (const name of [met, gone].flat()) renamed.push(name);
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
      for (const link of new Set(this.holders.get(key) as LabLink[])) {
        const checked = this.links.get(link);
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

function inLinkOrder(a: Use, b: Use): number {
  return a.checked.order - b.checked.order || a.index - b.index;
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
