/**
 * Every handler is guarded: whatever a service throws is logged and answered
 * with the handler's fallback, so no input can take the server down.
 * Deliberate ResponseErrors pass through to the client.
 */
import { ResponseError } from 'vscode-languageserver/node';
import type { LabDocuments, LabFile } from '../documents';
import type { Log } from '../log';

export class Guard {
  constructor(
    private readonly log: Log,
    private readonly documents: LabDocuments,
  ) {}

  async run<T>(what: string, fallback: T, run: () => T | Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ResponseError) throw error;
      this.log.error(`${what} failed`, error);
      return fallback;
    }
  }

  /** Runs `run` on the open lab file `uri`; a file that is not open answers `fallback`. */
  withFile<T>(what: string, uri: string, fallback: T, run: (file: LabFile) => T | Promise<T>): Promise<T> {
    return this.run(what, fallback, () => {
      const file = this.documents.get(uri);
      return file ? run(file) : fallback;
    });
  }
}
