/**
 * What can be captured in a lab: `node:interface` ends of its links. A link is
 * captured on one end (both directions cross it); a node's interfaces are the
 * ends of its links. Pure: the topology view's menu and the pick list share it.
 */

/** A link as both the lab model and the topology request give it. */
interface LinkEnds {
  endpoints: readonly { text: string; node?: string; interface?: string }[];
}

export interface CaptureChoice {
  /** `r1:eth1`, as the agent's capture targets name it. */
  target: string;
  /** The link it is on, as written: `r1:eth1 -- r2:eth1`. */
  link: string;
}

/** The end of a link to capture on: its first `node:interface` end; undefined when it has none. */
export function linkCaptureTarget(link: LinkEnds): string | undefined {
  const end = link.endpoints.find((e) => e.node !== undefined && (e.interface ?? '') !== '');
  return end === undefined ? undefined : `${end.node}:${end.interface}`;
}

/** One choice per link, or, for a node, one per interface of it on a link. */
export function captureChoices(links: readonly LinkEnds[], node?: string): CaptureChoice[] {
  const choices: CaptureChoice[] = [];
  const seen = new Set<string>();
  for (const link of links) {
    const text = link.endpoints.map((e) => e.text).join(' -- ');
    const targets =
      node === undefined
        ? [linkCaptureTarget(link)]
        : link.endpoints
            .filter((e) => e.node === node && (e.interface ?? '') !== '')
            .map((e) => `${e.node}:${e.interface}`);
    for (const target of targets) {
      if (target === undefined || seen.has(target)) continue;
      seen.add(target);
      choices.push({ target, link: text });
    }
  }
  return choices;
}
