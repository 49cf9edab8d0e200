/**
 * Whether a console command's output looks like the device refused it. The
 * agent reports a command as run when the console answered; only the text says
 * whether the device understood it. Each family of consoles has its own way of
 * saying no; the family is guessed from the node's template, and when it
 * cannot be guessed every family's patterns apply. A match is a hint, shown as
 * "looks like an error", never a verdict.
 */

export type ConsoleFamily = 'ios' | 'shell' | 'vpcs';

const PATTERNS: Readonly<Record<ConsoleFamily, readonly RegExp[]>> = {
  // Cisco IOS, IOS XE, IOS XR, NX-OS, and CLIs that copy them (Arista EOS, FRR's vtysh).
  ios: [
    /^[ \t]*% ?(Invalid|Incomplete|Ambiguous|Unknown|Unrecognized) (input|command)/im,
    /^[ \t]*% ?(Invalid|Bad) .*(detected|argument|value)/im,
    /^[ \t]*\^[ \t]*$/m,
    /^[ \t]*% ?Error:/im,
    /^[ \t]*% ?(Command|Line) (rejected|has invalid)/im,
  ],
  // POSIX shells (bash, sh, ash, zsh) and common tools.
  shell: [
    /(^|: )(command )?not found[ \t]*$/im,
    /: No such file or directory[ \t]*$/im,
    /: Permission denied[ \t]*$/im,
    /^\S*: (illegal|invalid|unrecognized) option/im,
    /^-?\w*sh: .*: (syntax error|bad substitution)/im,
  ],
  // VPCS and other simple simulators.
  vpcs: [/^[ \t]*(Bad|Invalid|Unknown) command/im],
};

/** The family of a node's console, from its template name; undefined when it cannot be told. */
export function consoleFamily(template: string | undefined): ConsoleFamily | undefined {
  const t = (template ?? '').toLowerCase();
  if (t === '') return undefined;
  if (t.startsWith('vpcs')) return 'vpcs';
  if (/(linux|ubuntu|debian|alpine|centos|docker|kali|server|host)/.test(t)) return 'shell';
  if (/(ios|iol|csr|vios|xr|nx|n9k|asa|cat|c8000|veos|arista|isr)/.test(t)) return 'ios';
  return undefined;
}

/** The first line of `output` that looks like an error, or undefined. */
export function errorLookingLine(output: string, family: ConsoleFamily | undefined): string | undefined {
  const families = family !== undefined ? [family] : (Object.keys(PATTERNS) as ConsoleFamily[]);
  const text = output.replace(/\r\n?/g, '\n');
  const lines = text.split('\n');
  for (const f of families) {
    for (const pattern of PATTERNS[f]) {
      const match = pattern.exec(text);
      if (match === null) continue;
      const at = text.slice(0, match.index).split('\n').length - 1;
      // A caret alone marks where IOS stopped understanding: the line after it says why.
      const line = lines[at].trim() === '^' ? (lines[at + 1] ?? lines[at]) : lines[at];
      return line.trim();
    }
  }
  return undefined;
}

/** One sentence about a run on several nodes: answers, refusals by the agent, and outputs that look like errors. */
export function execManySummary(
  command: string,
  lab: string,
  total: number,
  failed: number,
  suspects: readonly string[],
): string {
  const answered = total - failed;
  const parts = [`${answered} answered`];
  if (failed > 0) parts.push(`${failed} failed`);
  const count = suspects.length === 1 ? 'One output looks' : `${suspects.length} outputs look`;
  const listed = `${suspects.slice(0, 3).join('; ')}${suspects.length > 3 ? '; …' : ''}`;
  const looks = suspects.length === 0 ? '' : ` ${count} like an error (${listed}); see the output.`;
  return `Ran "${command}" on ${total} node(s) of ${lab}: ${parts.join(', ')}.${looks}`;
}
