/** Where the project is: the nearest folder above this file with the project's package.json. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'lab-agent') return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}

export const ROOT = findRoot(__dirname);
export const DIST = join(ROOT, 'dist');
