import type { EmuNodeSpec } from '../../agent/emulator/backend';

/** What a test's node is unless it says otherwise: the template's default image, telnet, no config, at the origin. */
const DEFAULTS = { image: '', icon: 'Router.png', cpu: 1, ram: 512, console: 'telnet', left: 0, top: 0 } as const;

/** A node of `template` with `ethernet` interfaces, as a backend's addNode takes it; `more` sets any other field. */
export function nodeSpec(
  name: string,
  template: string,
  ethernet: number,
  more: Partial<EmuNodeSpec> = {},
): EmuNodeSpec {
  return { ...DEFAULTS, name, template, ethernet, ...more };
}
