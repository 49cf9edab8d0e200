/** An emulator that cannot run on this machine: the agent still starts and answers, and every emulator call says why. */
import { EmuError, type EmulatorBackend, type EmulatorClient } from './backend';

export class UnavailableEmulator implements EmulatorBackend {
  readonly description: string;

  constructor(
    private readonly kind: string,
    readonly problems: string[],
  ) {
    this.description = `${kind}: cannot run here: ${problems.join('; ')}`;
  }

  connect(): Promise<EmulatorClient> {
    const fail = (): Promise<never> =>
      Promise.reject(
        new EmuError(
          'unreachable',
          `the ${this.kind} emulator cannot run on this machine: ${this.problems.join('; ')}.`,
        ),
      );
    // Every method fails with the reason; `then` stays undefined so the client is not mistaken for a promise.
    return Promise.resolve(
      new Proxy({} as EmulatorClient, {
        get: (_target, key) =>
          key === 'labUrl' ? () => '' : key === 'then' || key === 'runCommand' ? undefined : fail,
      }),
    );
  }

  async close(): Promise<void> {}
}
