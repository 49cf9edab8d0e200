import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFingerprint, normalizeFingerprint, AgentError } from '../../common/api/client';

const HEX = '0123456789abcdef'.repeat(4);
const CANONICAL = Array(4).fill('01:23:45:67:89:AB:CD:EF').join(':');

test('fingerprints in any case, with or without colons, normalise to uppercase colon pairs', () => {
  assert.equal(normalizeFingerprint(HEX), CANONICAL);
  assert.equal(normalizeFingerprint(HEX.toUpperCase()), CANONICAL);
  assert.equal(normalizeFingerprint(CANONICAL.toLowerCase()), CANONICAL);
  assert.equal(normalizeFingerprint(` ${CANONICAL} `), CANONICAL);
});

test('what is not a SHA-256 fingerprint is refused with an actionable tls_pin_mismatch', () => {
  for (const bad of ['', 'zz', HEX.slice(2), `${HEX}00`, HEX.replace('a', 'g'), 'SHA256:' + HEX]) {
    assert.equal(isFingerprint(bad), false, bad);
    assert.throws(
      () => normalizeFingerprint(bad),
      (err: unknown) =>
        err instanceof AgentError && err.code === 'tls_pin_mismatch' && /64 hex digits/.test(err.message),
    );
  }
  assert.equal(isFingerprint(HEX), true);
});
