/**
 * Text that came from the agent and is about to reach the user (an error
 * message, a machine code, a diagnostic): bounded in length and cleaned of
 * control and bidirectional-override characters, so a hostile or broken agent
 * cannot flood a notification, the status bar or the Problems view.
 */

/** Longest agent text shown: a few sentences, enough for any real error message. */
export const AGENT_TEXT_MAX_CHARS = 2000;
/** Machine codes are short identifiers (decisions §2). */
const CODE_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
/** C0 (but tab and newline), DEL, C1, and the bidi controls that can make text read other than it is. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function boundedText(text: string, maxChars = AGENT_TEXT_MAX_CHARS): string {
  // Cut before cleaning, so a 100 MB string costs no more than a short one.
  const head = text.length > maxChars + 1 ? text.slice(0, maxChars + 1) : text;
  const clean = head.replace(UNSAFE, ' ');
  if (clean.length <= maxChars) return clean;
  // Never end on half of a surrogate pair.
  let end = maxChars - 1;
  if (/[\ud800-\udbff]/.test(clean.charAt(end - 1))) end--;
  return `${clean.slice(0, end)}…`;
}

/** The agent's machine code when it looks like one (a short identifier); undefined otherwise. */
export function agentCode(code: unknown): string | undefined {
  return typeof code === 'string' && CODE_PATTERN.test(code) ? code : undefined;
}
