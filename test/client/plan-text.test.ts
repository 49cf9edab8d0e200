import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlanData } from '../../common/api/contract';
import {
  planApplyBlocker,
  planChangeCount,
  planDeletes,
  planSummaryLine,
  renderPlan,
} from '../../client/model/plan-text';

const plan: PlanData = {
  lab: '/lab-agent/campus.unl',
  exists: true,
  direction: 'to_emu',
  summary: { create: 2, update: 1, delete: 1, unchanged: 4 },
  actions: [
    { op: 'create', kind: 'node', name: 'r3', fields: ['template', 'image'] },
    { op: 'update', kind: 'node', name: 'r1', fields: ['ram'] },
    { op: 'delete', kind: 'link', name: 'r1:e0 -- r2:e0' },
    { op: 'create', kind: 'network', name: 'mgmt' },
  ],
  operations: [
    { op: 'delete', kind: 'link', name: 'r1:e0 -- r2:e0' },
    { op: 'create', kind: 'network', name: 'mgmt' },
    { op: 'create', kind: 'node', name: 'r3', fields: ['template', 'image'] },
    { op: 'update', kind: 'node', name: 'r1', fields: ['ram'] },
  ],
  applicable: true,
  blocked: [],
  plan_identity: 'abc123',
};

test('the summary line counts every kind of change', () => {
  assert.equal(planSummaryLine(plan.summary), '2 to create, 1 to update, 1 to delete, 4 unchanged');
  assert.equal(planSummaryLine(undefined), '0 to create, 0 to update, 0 to delete, 0 unchanged');
});

test('the rendered plan lists the operations in apply order with signs and fields', () => {
  const text = renderPlan(plan, 'campus', false);
  const lines = text.split('\n');
  assert.match(lines[0], /^Plan for campus \(document → emulator\)$/);
  assert.ok(text.includes('Lab:     /lab-agent/campus.unl'));
  assert.ok(text.includes('Prune:   no'));
  const changes = lines.filter((l) => /^ {2}[+~\-!] /.test(l));
  assert.deepEqual(changes, [
    '  - link    r1:e0 -- r2:e0',
    '  + network mgmt',
    '  + node    r3  (template, image)',
    '  ~ node    r1  (ram)',
  ]);
  assert.ok(text.includes('Plan identity: abc123'));
  assert.ok(text.includes('Apply: run'));
  assert.ok(text.endsWith('\n'));
});

test('blocked actions are shown with their reason and prevent applying', () => {
  const blocked: PlanData = {
    ...plan,
    applicable: false,
    blocked: [{ op: 'create', kind: 'node', name: 'r9', reason: 'template vios is not provisioned' }],
  };
  const text = renderPlan(blocked, 'campus', false);
  assert.ok(text.includes('Blocked (cannot be applied):'));
  assert.ok(text.includes('  ! node    r9: template vios is not provisioned'));
  assert.match(planApplyBlocker(blocked) ?? '', /blocked/);
  assert.match(text, /Apply: not possible\./);
});

test('a plan is applicable only towards the emulator, unlocked, with an identity and changes', () => {
  assert.equal(planApplyBlocker(plan), undefined);
  assert.ok(planApplyBlocker({ ...plan, direction: 'from_emu' }));
  assert.ok(planApplyBlocker({ ...plan, locked: true }));
  assert.ok(planApplyBlocker({ ...plan, plan_identity: undefined }));
  assert.ok(planApplyBlocker({ ...plan, applicable: false }));
  assert.match(planApplyBlocker({ ...plan, actions: [], operations: [] }) ?? '', /Nothing to change/);
});

test('a plan of an absent lab says so; an empty plan says no changes', () => {
  const text = renderPlan({ ...plan, exists: false, actions: [], operations: [] }, 'campus', false);
  assert.ok(text.includes('(not deployed yet)'));
  assert.ok(text.includes('No changes.'));
});

test('the agent text, when sent, is shown instead of the action list', () => {
  const text = renderPlan(
    { ...plan, text: 'Plan: document -> emulator\n  ~ node r1: ram 512 -> 1024\n' },
    'campus',
    true,
  );
  assert.ok(text.includes('  ~ node r1: ram 512 -> 1024'));
  assert.ok(!text.includes('Changes:'));
  assert.ok(text.includes('Prune:   yes'));
});

test('counts come from the actions, else from the summary', () => {
  const bare: PlanData = { summary: { create: 1 }, plan_identity: 'x' };
  assert.equal(planChangeCount(bare), 1);
  assert.equal(planDeletes({ summary: { delete: 3 } }), 3);
  assert.equal(planDeletes(plan), 1);
  assert.ok(renderPlan(bare, 'lab', false).includes('No changes.'));
});

test('a pull plan does not talk about prune', () => {
  assert.ok(!renderPlan({ ...plan, direction: 'from_emu' }, 'campus', false).includes('Prune:'));
});

test('with several agents, the plan says which agent it was made against', () => {
  const text = renderPlan(plan, 'campus', false, { name: 'eve', url: 'https://eve.example:8787' });
  assert.equal(text.split('\n')[1], 'Agent:   eve (https://eve.example:8787)');
  assert.doesNotMatch(renderPlan(plan, 'campus', false), /^Agent: /m);
});
