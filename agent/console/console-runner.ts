/**
 * Runs one command on a node's console the way a person would over telnet:
 * press Enter and wait for the prompt, type the command, collect what the
 * device prints until the prompt comes back. Commands on one node take turns,
 * so their output cannot interleave. An emulator that can run commands
 * itself (EmulatorClient.runCommand) does so instead.
 */
import { StringDecoder } from 'node:string_decoder';
import type { CommandOutput, EmulatorClient } from '../emulator/backend';
import { TelnetDecoder } from './telnet';
import { Turns } from '../turns';
import { EXEC_LIMITS } from './exec-limits';

/** A prompt line: "r1#", "r1>", "root@r1:~# ", "VPCS> ", "user@host$ ". */
const PROMPT_LINE = /^\S[^\r\n]*[#>$%] ?$/;
/** Output can arrive in pieces; a prompt counts once nothing more comes for this long. */
const QUIET_MS = 15;
/** What is kept of a command's output: more than a reply keeps (the rest is only read for the prompt, or dropped). */
const MAX_KEPT_CHARS = EXEC_LIMITS.commandChars + 64 * 1024;
/** The end of the output always kept, where the prompt is looked for. */
const TAIL_CHARS = 4096;

function endsWithPrompt(text: string): boolean {
  const lastLine = text.slice(text.lastIndexOf('\n') + 1);
  return PROMPT_LINE.test(lastLine);
}

export class ConsoleRunner {
  private readonly turns = new Turns();

  async run(
    client: EmulatorClient,
    lab: string,
    nodeId: number,
    command: string,
    timeoutMs: number,
  ): Promise<CommandOutput> {
    return this.turns.run(`${lab}#${nodeId}`, () =>
      client.runCommand
        ? client.runCommand(lab, nodeId, command, timeoutMs, MAX_KEPT_CHARS)
        : this.runNow(client, lab, nodeId, command, timeoutMs),
    );
  }

  private async runNow(
    client: EmulatorClient,
    lab: string,
    nodeId: number,
    command: string,
    timeoutMs: number,
  ): Promise<CommandOutput> {
    const stream = await client.openConsole(lab, nodeId);
    const telnet = new TelnetDecoder('client');
    const utf8 = new StringDecoder('utf8');
    let text = '';
    // Past MAX_KEPT_CHARS, output is only read for the prompt: a device that floods its console
    // cannot make the agent hold more than that until the command times out.
    let lastChars = '';
    let dropped = false;
    let waiter: (() => void) | undefined;
    stream.on('data', (chunk: Buffer) => {
      const piece = utf8.write(telnet.decode(chunk));
      if (text.length < MAX_KEPT_CHARS) text += piece;
      else dropped = true;
      lastChars = (lastChars + piece).slice(-TAIL_CHARS);
      waiter?.();
    });
    let closed = false;
    stream.on('close', () => {
      closed = true;
      waiter?.();
    });
    stream.on('error', () => undefined);

    const deadline = Date.now() + timeoutMs;
    /** Waits until the text after `from` ends with a prompt (and, if asked, has a line break first). */
    const promptAfter = (from: number, needNewline: boolean) =>
      new Promise<boolean>((resolve) => {
        let quiet: NodeJS.Timeout | undefined;
        const overall = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
        const finish = (ok: boolean) => {
          clearTimeout(overall);
          if (quiet) clearTimeout(quiet);
          waiter = undefined;
          resolve(ok);
        };
        waiter = () => {
          if (quiet) clearTimeout(quiet);
          const after = dropped ? lastChars : text.slice(from);
          if (closed) return finish(false);
          if ((!needNewline || dropped || after.includes('\n')) && endsWithPrompt(after))
            quiet = setTimeout(() => finish(true), QUIET_MS);
        };
        waiter();
      });

    try {
      stream.write('\r');
      if (!(await promptAfter(0, false)))
        return { output: text.replace(/\r\n?/g, '\n'), durationMs: 0, timedOut: true };
      const start = text.length;
      const started = Date.now();
      stream.write(`${command}\r`);
      const ok = await promptAfter(start, true);
      const durationMs = Date.now() - started;
      const tail = text.slice(start);
      // Drop the echoed command line and, when it came, the closing prompt.
      const afterEcho = tail.slice(tail.indexOf('\n') + 1);
      const output = ok ? afterEcho.slice(0, afterEcho.lastIndexOf('\n') + 1) : afterEcho;
      return {
        output: output.replace(/\r\n?/g, '\n'),
        durationMs,
        timedOut: !ok,
        ...(dropped ? { truncated: true } : {}),
      };
    } finally {
      stream.destroy();
    }
  }
}
