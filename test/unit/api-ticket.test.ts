import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ticketOf } from '../../common/api/client';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

test('the ticket field comes first', () => {
  assert.equal(ticketOf({ ticket: A, stream: `/api/v1/console/stream/${B}` }), A);
});

test('then a 64-hex last path segment of stream', () => {
  assert.equal(ticketOf({ stream: `/api/v1/console/stream/${B}` }), B);
  assert.equal(ticketOf({ stream: `https://127.0.0.1:8787/api/v1/console/stream/${B}/` }), B);
  assert.equal(ticketOf({ ticket: 'not-a-ticket', stream: `/api/v1/console/stream/${B}` }), B);
});

test('then stream itself when it is 64 hex', () => {
  assert.equal(ticketOf({ stream: B }), B);
});

test('nothing usable gives undefined', () => {
  assert.equal(ticketOf({}), undefined);
  assert.equal(ticketOf({ stream: '/api/v1/console/stream/' }), undefined);
  assert.equal(ticketOf({ stream: `/api/v1/console/stream/${A.toUpperCase()}` }), undefined);
  assert.equal(ticketOf({ ticket: A.slice(1) }), undefined);
});
