/**
 * Names ranked by how close they are to one written wrongly, for "did you
 * mean" messages and quick fixes: by edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours each count 1), ties in the order
 * given. Twenty lines rather than a dependency; names are short, and a name
 * further than the bound is skipped without filling its whole table.
 */

/** At most `count` names within a few edits of `wanted`, closest first; never `wanted` itself. */
export function closestNames(wanted: string, names: Iterable<string>, count = 3): string[] {
  const bound = Math.max(1, Math.ceil(wanted.length / 3));
  const found: { name: string; distance: number; order: number }[] = [];
  let order = 0;
  for (const name of names) {
    order++;
    if (name === wanted || Math.abs(name.length - wanted.length) > bound) continue;
    const distance = editDistance(wanted, name, bound);
    if (distance <= bound) found.push({ name, distance, order });
  }
  found.sort((a, b) => a.distance - b.distance || a.order - b.order);
  return found.slice(0, count).map((f) => f.name);
}

/** The edit distance of two strings (optimal string alignment), or bound + 1 once it is sure to exceed `bound`. */
function editDistance(a: string, b: string, bound = Infinity): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let smallest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      row.push(d);
      smallest = Math.min(smallest, d);
    }
    if (smallest > bound) return bound + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length];
}
