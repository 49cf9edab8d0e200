/**
 * What the agent's domain refuses, in its own words. The domain does not know the
 * wire: agent/http/api-error.ts gives each kind its envelope code and HTTP status.
 */
export type DomainErrorKind =
  /** A request field the domain reads is missing or wrong. */
  | 'invalid_input'
  /** The lab document does not validate, or the agent does not read it (over a limit). */
  | 'invalid_document'
  /** The emulator has no such lab. */
  | 'no_such_lab'
  /** The lab belongs to another user (answered as if it did not exist, decisions §13). */
  | 'others_lab'
  /** The emulator locked the lab. */
  | 'lab_locked'
  /** An interrupted apply left the lab half-applied. */
  | 'half_applied'
  /** Another long operation has the lab. */
  | 'lab_busy'
  /** The user owns their quota of labs already. */
  | 'over_quota'
  /** The plan no longer matches the document, the live lab or the direction. */
  | 'stale_plan'
  /** The agent is stopping. */
  | 'stopping';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** Details for the caller (e.g. the diagnostics of an invalid document). */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/**
 * An apply that stopped part-way: `stoppedBy` is the emulator's or the domain's error, `progress`
 * says what changed before it stopped ('' when nothing did), and `outcome` lists the changes.
 * The wire answers with that error's code and message, followed by the progress.
 */
export class ApplyStopped extends Error {
  constructor(
    readonly stoppedBy: unknown,
    readonly progress: string,
    readonly outcome: Record<string, unknown>,
  ) {
    super(`apply stopped part-way${progress}`);
    this.name = 'ApplyStopped';
  }
}
