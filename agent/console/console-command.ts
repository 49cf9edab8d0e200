/**
 * What a console exec command may be: one line of text a person could type.
 * A terminal takes at most 4095 characters on a line (Linux's N_TTY_BUF_SIZE
 * less the line end), so a longer command would never reach a device whole;
 * control characters (NUL, CR, LF, Ctrl-C, ESC, …) are keystrokes, not text.
 */

const MAX_COMMAND_BYTES = 4095;

/** Why `command` cannot be run (a sentence naming `field`), or undefined when it can. */
export function commandProblem(field: string, command: string): string | undefined {
  if (/[\r\n]/.test(command))
    return `"${field}" must be one line; send several commands as separate targets of exec-many.`;
  const bytes = Buffer.byteLength(command);
  if (bytes > MAX_COMMAND_BYTES)
    return `"${field}" is ${bytes} bytes long; a console line takes at most ${MAX_COMMAND_BYTES}.`;
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  const control = /[\u0000-\u0008\u000b-\u001f\u007f]/.exec(command);
  if (control)
    return `"${field}" holds the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at position ${control.index}; a command is printable text (tabs allowed).`;
  return undefined;
}
