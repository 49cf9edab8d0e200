/**
 * Which tests a run of the Testing view runs, from what it was asked: one
 * test, a lab (all its tests), or nothing named (Run All: every lab's, of
 * which the controller then runs only the deployed ones). Excluded tests and
 * labs stay out. Pure, so that the choice is tested without VS Code.
 */

/** A lab as the Test Explorer lists it: its item's id and its tests' names, in the file's order. */
export interface ListedLab {
  id: string;
  tests: readonly string[];
}

/** An item of a run request: a lab (`test` absent) or one of its tests. */
export interface Chosen {
  lab: string;
  test?: string;
}

export interface PlannedLab {
  id: string;
  /** In the file's order. */
  tests: string[];
  /** Named in the request (or one of its tests was): run it even when it is not deployed, so the user hears why it cannot run. */
  named: boolean;
}

export function planRun(
  labs: readonly ListedLab[],
  include: readonly Chosen[] | undefined,
  exclude: readonly Chosen[],
): PlannedLab[] {
  const excludedLabs = new Set(exclude.filter((c) => c.test === undefined).map((c) => c.lab));
  const excludedTests = new Set(exclude.filter((c) => c.test !== undefined).map((c) => key(c.lab, c.test as string)));
  const wanted = new Map<string, Set<string> | 'all'>();
  for (const chosen of include ?? labs.map((lab): Chosen => ({ lab: lab.id }))) {
    const sofar = wanted.get(chosen.lab);
    if (chosen.test === undefined || sofar === 'all') wanted.set(chosen.lab, 'all');
    else wanted.set(chosen.lab, (sofar ?? new Set()).add(chosen.test));
  }
  const plan: PlannedLab[] = [];
  for (const lab of labs) {
    const want = wanted.get(lab.id);
    if (want === undefined || excludedLabs.has(lab.id)) continue;
    const tests = lab.tests.filter(
      (name) => (want === 'all' || want.has(name)) && !excludedTests.has(key(lab.id, name)),
    );
    if (tests.length > 0) plan.push({ id: lab.id, tests, named: include !== undefined });
  }
  return plan;
}

function key(lab: string, test: string): string {
  return `${lab}\n${test}`;
}
