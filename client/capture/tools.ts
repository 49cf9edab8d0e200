/**
 * Finds Wireshark's programs on the machine of the extension host: the path a
 * setting gives, else the program on PATH. Nothing is installed or downloaded.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The executable `name` (`tshark`, `wireshark`), from `configured` when set, else from PATH; undefined when absent. */
export function findProgram(name: string, configured: string, path = process.env.PATH ?? ''): string | undefined {
  const candidates =
    configured.trim() !== ''
      ? [configured.trim()]
      : path
          .split(delimiter)
          .filter((dir) => isAbsolute(dir))
          .flatMap((dir) => (process.platform === 'win32' ? [`${name}.exe`] : [name]).map((file) => join(dir, file)));
  return candidates.find(isExecutableFile);
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
