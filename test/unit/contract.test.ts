import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATIONS, operationPath, STATUS_OF_CODE } from '../../common/api/contract';

test('the operation table has the 28 operations of the contract and the 3 of capture (decisions §14)', () => {
  assert.equal(Object.keys(OPERATIONS).length, 31);
});

test('path parameters are filled and encoded', () => {
  assert.equal(operationPath('getTemplate', { id: 'a/b' }), '/api/v1/templates/a%2Fb');
});

test('the three contract-fixed statuses hold', () => {
  assert.equal(STATUS_OF_CODE.invalid_direction, 400);
  assert.equal(STATUS_OF_CODE.plan_stale, 409);
  assert.equal(STATUS_OF_CODE.lab_exists, 409);
});
