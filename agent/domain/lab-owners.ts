/**
 * Who owns which lab (decisions §13): the user who deployed or imported it.
 * Another user's lab answers 404 on every route, whatever the emulator; a lab
 * with no owner on record (made before owners were recorded, or outside the
 * agent) may be read by everyone and belongs to the first user who changes it.
 * A user may create at most so many labs (decisions §11), whatever the emulator.
 * Kept in the data directory, so ownership survives restarts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../storage/atomic-file';
import { DomainError } from './domain-error';

const FILE = 'lab-owners.json';
/** Labs one user may own (decisions §11): a quarter of the Linux emulator's 64 labs per agent. */
export const DEFAULT_LABS_PER_USER = 16;
/** Lab paths named in the quota's message, so the user sees which ones to destroy. */
const NAMED_LABS = 5;

interface OwnersFile {
  version: 1;
  /** Lab path → user name. */
  owners: Record<string, string>;
}

export class LabOwners {
  private readonly owners = new Map<string, string>();
  private readonly file: string;

  constructor(
    dataDir: string,
    private readonly log: (message: string) => void,
    /** Labs one user may create; claiming a lab that has no owner on record is not refused. */
    private readonly labsPerUser = DEFAULT_LABS_PER_USER,
  ) {
    this.file = join(dataDir, FILE);
    if (!existsSync(this.file)) return;
    // An unreadable file would make every lab anyone's: the agent does not start on it.
    let parsed: OwnersFile;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8')) as OwnersFile;
    } catch (e) {
      throw new Error(
        `${this.file} cannot be read (${(e as Error).message}); repair it, or remove it to make every lab unowned.`,
        { cause: e },
      );
    }
    const entries =
      parsed?.version === 1 && parsed.owners && typeof parsed.owners === 'object' ? parsed.owners : undefined;
    if (!entries || Object.values(entries).some((user) => typeof user !== 'string'))
      throw new Error(`${this.file} is not a lab owners file (version 1, owners: {path: user}); repair or remove it.`);
    for (const [path, user] of Object.entries(entries)) this.owners.set(path, user);
  }

  /** 404 when the lab belongs to someone else; an unowned lab is visible to every user. */
  check(path: string, username: string): void {
    if (this.isOthers(path, username))
      throw new DomainError(
        'others_lab',
        `Lab ${path} is another user's lab, so you can neither see nor change it. Give your lab another name (or "lab" path).`,
      );
  }

  /** Whether the lab belongs to a user other than `username`. */
  isOthers(path: string, username: string): boolean {
    const owner = this.owners.get(path);
    return owner !== undefined && owner !== username;
  }

  /**
   * Records `username` as the owner of a lab they are about to create or change. A lab that
   * exists must be theirs or unowned (checked); a path where no lab exists is free for anyone,
   * whoever owned the lab that was there before, unless the user owns their quota of labs.
   */
  claim(path: string, username: string, exists: boolean): void {
    if (exists) this.check(path, username);
    if (this.owners.get(path) === username) return;
    if (!exists) this.checkQuota(path, username);
    this.owners.set(path, username);
    this.save();
    if (exists) this.log(`Lab ${path} had no owner on record; it now belongs to ${username}, who changed it first.`);
  }

  /** The lab is gone: its path is free for anyone. */
  release(path: string): void {
    if (this.owners.delete(path)) this.save();
  }

  /** Refuses a new lab to a user who owns their quota of labs already. */
  private checkQuota(path: string, username: string): void {
    const theirs = [...this.owners].filter(([, user]) => user === username).map(([lab]) => lab);
    if (theirs.length < this.labsPerUser) return;
    const named = theirs.slice(0, NAMED_LABS).join(', ') + (theirs.length > NAMED_LABS ? ', …' : '');
    throw new DomainError(
      'over_quota',
      `You have ${theirs.length} labs on this agent, the most one user may have (${this.labsPerUser}); destroy one before creating ${path}. Yours: ${named}.`,
    );
  }

  private save(): void {
    const state: OwnersFile = { version: 1, owners: Object.fromEntries(this.owners) };
    writeFileAtomic(this.file, JSON.stringify(state));
  }
}
