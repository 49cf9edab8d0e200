/**
 * Who may log in (decisions §12): users with scrypt-hashed passwords, from a users file (mode
 * 0600, owned by the agent's user) or the environment, never the command line. A password is
 * checked against its hash in constant time; an unknown user costs the same as a wrong password.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeFileAtomic } from './storage/atomic-file';

/** A user as the agent keeps it: the name and the scrypt hash of the password. */
export interface UserRecord {
  username: string;
  /** `scrypt$N$r$p$salt$hash` with salt and hash in base64. */
  passwordHash: string;
}

/** A user with a password in clear (tests, the environment, the demo account): hashed at start. */
export interface PlainUser {
  username: string;
  password: string;
}

export type AgentUser = UserRecord | PlainUser;

/** The demo account of `npm start`; refused in front of real labs (decisions §12). */
export const DEFAULT_USER: PlainUser = { username: 'lab', password: 'lab' };

/** Where a user comes from the environment (one user; the variables are removed once read). */
export const USER_ENV = 'LAB_AGENT_USER';
export const PASSWORD_ENV = 'LAB_AGENT_PASSWORD';

/** 16 MiB and about 50 ms per hash: OWASP's minimum for scrypt is N=2^17 r=8 with p=1 at 128 MiB; this is the most Node's default 32 MiB maxmem allows with room. */
const SCRYPT = { N: 16384, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const USER_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

function scrypt(password: string, salt: Buffer, keyBytes: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, keyBytes, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, KEY_BYTES, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface ParsedHash {
  options: ScryptOptions;
  salt: Buffer;
  key: Buffer;
}

function parseHash(hash: string): ParsedHash | undefined {
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const key = Buffer.from(parts[5], 'base64');
  // Bounds that keep one check within Node's default scrypt memory (128 × N × r bytes ≤ 32 MiB).
  const sane = (n: number, max: number) => Number.isInteger(n) && n >= 1 && n <= max;
  if (!sane(N, 32768) || (N & (N - 1)) !== 0 || !sane(r, 16) || 128 * N * r > 16 * 1024 * 1024 || !sane(p, 4))
    return undefined;
  if (salt.length < 8 || key.length < 16) return undefined;
  return { options: { N, r, p }, salt, key };
}

async function matches(password: string, hash: ParsedHash): Promise<boolean> {
  const key = await scrypt(password, hash.salt, hash.key.length, hash.options);
  return timingSafeEqual(key, hash.key);
}

/** The users of one agent, checked by password. */
export class Credentials {
  private constructor(
    private readonly users: ReadonlyMap<string, ParsedHash>,
    /** Checked for unknown users, so they take as long as a wrong password. */
    private readonly decoy: ParsedHash,
  ) {}

  static async of(users: readonly AgentUser[]): Promise<Credentials> {
    const parsed = new Map<string, ParsedHash>();
    for (const user of users) {
      const hash = 'passwordHash' in user ? user.passwordHash : await hashPassword(user.password);
      const read = parseHash(hash);
      if (!read) throw new Error(`The password hash of user "${user.username}" is not a scrypt hash this agent reads.`);
      parsed.set(user.username, read);
    }
    const decoy = parseHash(await hashPassword(randomBytes(16).toString('hex')));
    if (!decoy) throw new Error('scrypt hashing is broken');
    return new Credentials(parsed, decoy);
  }

  get usernames(): string[] {
    return [...this.users.keys()];
  }

  async verify(username: string, password: string): Promise<boolean> {
    const known = this.users.get(username);
    const ok = await matches(password, known ?? this.decoy);
    return ok && known !== undefined;
  }
}

/**
 * Reads a users file: one `name:scrypt$…` line per user, `#` comments. Refused unless it is a
 * regular file owned by the agent's user that no one else may read or write (mode 0600 or 0400).
 */
export function readUsersFile(path: string): UserRecord[] {
  let stat;
  try {
    stat = statSync(path);
  } catch (e) {
    throw new Error(`The users file ${path} cannot be read (${(e as Error).message}).`, { cause: e });
  }
  if (!stat.isFile()) throw new Error(`The users file ${path} is not a regular file.`);
  if ((stat.mode & 0o077) !== 0)
    throw new Error(
      `The users file ${path} may be read or written by others (mode ${(stat.mode & 0o777).toString(8)}): run chmod 600 ${path}.`,
    );
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid())
    throw new Error(
      `The users file ${path} belongs to uid ${stat.uid}, not to the agent's user (uid ${process.getuid()}).`,
    );
  const users: UserRecord[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const colon = line.indexOf(':');
      const username = line.slice(0, colon);
      const passwordHash = line.slice(colon + 1);
      if (colon <= 0 || !USER_NAME.test(username) || !parseHash(passwordHash))
        throw new Error(
          `Line ${index + 1} of the users file ${path} is not "name:scrypt$…" (add users with: node dist/agent.js add-user NAME).`,
        );
      users.push({ username, passwordHash });
    });
  return users;
}

/** Adds a user to a users file (or replaces their password), creating the file with mode 0600. */
export async function addUser(path: string, username: string, password: string): Promise<'added' | 'replaced'> {
  if (!USER_NAME.test(username))
    throw new Error(`A user name is 1 to 64 of A-Z a-z 0-9 . _ @ -, not ${JSON.stringify(username)}.`);
  if (password.length < 8) throw new Error('The password must have at least 8 characters.');
  const existing = existsSync(path) ? readUsersFile(path) : [];
  const replaced = existing.some((u) => u.username === username);
  const users = [
    ...existing.filter((u) => u.username !== username),
    { username, passwordHash: await hashPassword(password) },
  ];
  writeFileAtomic(path, users.map((u) => `${u.username}:${u.passwordHash}\n`).join(''), 0o600);
  return replaced ? 'replaced' : 'added';
}

/** The user named in the environment, if any; the password variable is removed so that commands the agent runs never see it. */
export function userFromEnvironment(env: NodeJS.ProcessEnv): PlainUser | undefined {
  const username = env[USER_ENV];
  const password = env[PASSWORD_ENV];
  delete env[PASSWORD_ENV];
  if (username === undefined && password === undefined) return undefined;
  if (!username || !password) throw new Error(`Set both ${USER_ENV} and ${PASSWORD_ENV}, or neither.`);
  return { username, password };
}
