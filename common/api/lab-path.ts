/**
 * Emulator lab paths (decisions §1): the one rule the client and the agent both
 * check, so a path one end accepts is never refused by the other.
 */

/** Longer paths are refused: EVE-NG keeps labs as files, and no real folder tree needs more. */
export const LAB_PATH_MAX_LENGTH = 255;
const LAB_PATH_CHARACTERS = /^[A-Za-z0-9_+ /-]+$/;
const SUFFIX = '.unl';

/** Why `path` is not an emulator lab path, as a sentence for the user; undefined when it is one. */
export function labPathProblem(path: string): string | undefined {
  if (path === '') return 'The path is empty; an emulator lab path looks like /examples/campus.unl.';
  if (path.length > LAB_PATH_MAX_LENGTH)
    return `The path has ${path.length} characters; emulator lab paths have at most ${LAB_PATH_MAX_LENGTH}.`;
  if (!path.startsWith('/')) return 'The path starts with "/", e.g. /examples/campus.unl.';
  if (!path.endsWith(SUFFIX)) return 'Emulator lab paths end in ".unl", e.g. /examples/campus.unl.';
  if (!LAB_PATH_CHARACTERS.test(path.slice(0, -SUFFIX.length)))
    return 'Only letters, digits, space, "_", "+", "-" and "/" are allowed in the path.';
  // "//x.unl", "/ .unl", "/a/ /b.unl": every folder and the lab name need a visible character.
  if (
    path
      .slice(1, -SUFFIX.length)
      .split('/')
      .some((segment) => segment.trim() === '')
  )
    return 'A folder or the lab name in the path is empty or blank (as in "//" or "/ /").';
  return undefined;
}

export function isLabPath(path: string): boolean {
  return labPathProblem(path) === undefined;
}
