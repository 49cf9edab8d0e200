/** Equality of JSON values (plain data: strings, numbers, booleans, null, arrays and objects of them), key order aside. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
  let keys = 0;
  for (const key in x) {
    if (!Object.prototype.hasOwnProperty.call(y, key) || !sameValue(x[key], y[key])) return false;
    keys++;
  }
  for (const key in y) if (Object.prototype.hasOwnProperty.call(y, key)) keys--;
  return keys === 0;
}
