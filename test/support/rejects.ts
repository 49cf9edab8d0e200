import assert from 'node:assert/strict';

/**
 * Awaits a call that must fail with an error of `type` whose `field` is `expected`, and returns that
 * error for the caller to look into further (assert.rejects checks as much but returns nothing).
 */
export async function rejectsWith<E extends Error, K extends keyof E>(
  call: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
  field: K,
  expected: E[K],
): Promise<E> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof type, `expected an ${type.name}, got ${String(err)}`);
    assert.equal(err[field], expected, err.message);
    return err;
  }
  assert.fail(`expected ${type.name} ${String(expected)}`);
}
