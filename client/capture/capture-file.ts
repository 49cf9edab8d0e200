/**
 * Where a capture is written: a `.pcapng` file under the folder the user set
 * (`labAgent.capture.folder`), named with the lab, the targets and the start
 * time, so that a folder of captures sorts and reads by itself. Pure.
 */
import { isAbsolute, join } from 'node:path';

/** Targets named in full in a file name; more are counted (`+3-more`). */
const NAMED_TARGETS = 3;
/** A name part longer than this is cut: file systems limit names to 255 bytes. */
const PART_CHARS = 40;

/** A name part with only characters every file system takes: `r1:eth1` → `r1-eth1`. */
function safePart(text: string): string {
  const safe = text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, PART_CHARS);
  return safe === '' ? 'x' : safe;
}

/** `2026-11-26T19-30-05Z`: UTC, seconds, no colons (Windows forbids them in names). */
function stamp(at: Date): string {
  return at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
}

/** `ospf_r1-eth1_2026-11-26T19-30-05Z.pcapng`; several targets are joined with `+`. */
export function captureFileName(lab: string, targets: readonly string[], at: Date): string {
  const named = targets.slice(0, NAMED_TARGETS).map(safePart);
  if (targets.length > NAMED_TARGETS) named.push(`${targets.length - NAMED_TARGETS}-more`);
  return `${safePart(lab)}_${named.join('+')}_${stamp(at)}.pcapng`;
}

/**
 * The folder captures go to: the setting as given when absolute, else under the workspace
 * folder of the lab; an empty setting is the default `captures`.
 */
export function captureFolder(setting: string, workspaceFolder: string): string {
  const folder = setting.trim() === '' ? 'captures' : setting.trim();
  return isAbsolute(folder) ? folder : join(workspaceFolder, folder);
}
