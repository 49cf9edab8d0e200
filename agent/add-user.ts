/**
 * `node dist/agent.js add-user NAME [--data-dir DIR | --users-file FILE]`: adds a user to the
 * agent's users file (or changes their password). The password is read from the terminal
 * without echo, or from the first line of standard input, never from the command line.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addUser } from './users';

const USAGE =
  'Usage: node dist/agent.js add-user NAME [--data-dir DIR | --users-file FILE]  (password from the terminal or stdin)\n';

/** Runs the command; resolves with the exit code. */
export async function addUserCommand(argv: string[]): Promise<number> {
  let name: string;
  let file: string;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { 'data-dir': { type: 'string' }, 'users-file': { type: 'string' } },
    });
    if (positionals.length !== 1) throw new Error('add-user takes one user name.');
    name = positionals[0];
    file = values['users-file'] ?? join(values['data-dir'] ?? '.agent-data', 'users');
  } catch (e) {
    process.stderr.write(`lab-agent: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  try {
    const password = await readPassword(`Password for ${name}: `);
    if (process.stdin.isTTY && password !== (await readPassword('Again: ')))
      throw new Error('The two passwords differ; nothing was changed.');
    const done = await addUser(file, name, password);
    process.stdout.write(`${done === 'added' ? 'Added' : 'Changed the password of'} ${name} in ${file}.\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`lab-agent: ${(e as Error).message}\n`);
    return 1;
  }
}

/** One line from the terminal (not echoed) or from piped standard input. */
function readPassword(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let text = '';
    const done = (line: string) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      if (stdin.isTTY) {
        stdin.setRawMode(false);
        process.stderr.write('\n');
      }
      stdin.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (stdin.isTTY && text.includes('\u0003')) {
        stdin.setRawMode(false);
        reject(new Error('Cancelled.'));
        return;
      }
      const end = text.search(/[\r\n]/);
      if (end >= 0) done(text.slice(0, end));
    };
    const onEnd = () => done(text);
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}
