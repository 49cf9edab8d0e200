import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CapabilitiesData } from '../../common/api/contract';
import {
  capabilityContextKeys,
  importDenial,
  isLabActionAllowed,
  LAB_ACTIONS,
  labActionDenial,
  projectModeOf,
} from '../../client/model/capabilities';
import { referenceCapabilities } from '../../agent/handlers/connection';

/** What the reference agent answers (decisions §6). */
const reference = referenceCapabilities();
const { features: allFeatures } = reference;
const { managed } = reference.projectModes;

test('the reference capabilities allow every action in both modes (capture: only where the emulator has it)', () => {
  for (const action of LAB_ACTIONS.filter((a) => a !== 'capture')) {
    assert.equal(isLabActionAllowed(reference, action, 'managed'), true, action);
    assert.equal(isLabActionAllowed(reference, action, 'imported'), true, action);
  }
  assert.equal(importDenial(reference), undefined);
});

test('capture is allowed, and its context key set, only when features.capture is true (decisions §14)', () => {
  assert.equal(isLabActionAllowed(reference, 'capture', 'managed'), false);
  assert.match(labActionDenial(reference, 'capture', 'managed') ?? '', /capability "capture" is off/);
  assert.equal(capabilityContextKeys(reference)['labAgent.can.capture'], false);
  const linux = { ...reference, features: { ...reference.features, capture: true } };
  assert.equal(isLabActionAllowed(linux, 'capture', 'imported'), true);
  assert.equal(capabilityContextKeys(linux)['labAgent.can.capture'], true);
});

test('without capabilities (logged out) nothing is allowed, and the reason says to log in', () => {
  assert.match(labActionDenial(undefined, 'deploy', 'managed') ?? '', /Log in/);
  assert.match(importDenial(undefined) ?? '', /Log in/);
});

test('a feature that is off, or missing, denies the action and names the capability', () => {
  const caps: CapabilitiesData = { ...reference, features: { ...allFeatures, deploy: false } };
  assert.match(labActionDenial(caps, 'deploy', 'managed') ?? '', /"deploy" is off/);
  const missing: CapabilitiesData = { ...reference, features: { validate: true } };
  assert.equal(isLabActionAllowed(missing, 'plan', 'managed'), false);
  assert.equal(isLabActionAllowed(missing, 'validate', 'managed'), true);
});

test('project-mode flags and lifecycle flags gate per mode', () => {
  const caps: CapabilitiesData = {
    ...reference,
    projectModes: {
      managed,
      imported: { ...managed, destroy: false, lifecycle: { start: true, stop: true, wipe: false } },
    },
  };
  assert.equal(isLabActionAllowed(caps, 'destroy', 'managed'), true);
  assert.match(labActionDenial(caps, 'destroy', 'imported') ?? '', /projectModes\.imported\.destroy/);
  assert.match(labActionDenial(caps, 'wipe', 'imported') ?? '', /lifecycle\.wipe/);
  assert.equal(isLabActionAllowed(caps, 'start', 'imported'), true);
  // Feature-only actions do not look at the mode.
  assert.equal(isLabActionAllowed(caps, 'validate', 'imported'), true);
});

test('pushing needs topology_mutation, pulling does not', () => {
  const caps: CapabilitiesData = { ...reference, projectModes: { managed: { ...managed, topology_mutation: false } } };
  assert.equal(isLabActionAllowed(caps, 'reconcileToEmu', 'managed'), false);
  assert.equal(isLabActionAllowed(caps, 'reconcileFromEmu', 'managed'), true);
  assert.equal(isLabActionAllowed(caps, 'deploy', 'managed'), false);
});

test('a mode the agent does not list denies mode-bound actions', () => {
  const caps: CapabilitiesData = { ...reference, projectModes: { managed } };
  assert.match(labActionDenial(caps, 'inspect', 'imported') ?? '', /imported labs/);
});

test('context keys: an action is offered when some mode allows it', () => {
  const caps: CapabilitiesData = {
    ...reference,
    features: { ...allFeatures, import: false },
    projectModes: { managed: { ...managed, destroy: false }, imported: { ...managed, destroy: true } },
  };
  const keys = capabilityContextKeys(caps);
  assert.equal(keys['labAgent.can.destroy'], true);
  assert.equal(keys['labAgent.can.import'], false);
  assert.equal(keys['labAgent.can.plan'], true);
  const none = capabilityContextKeys(undefined);
  assert.ok(Object.values(none).every((v) => v === false));
  assert.equal(Object.keys(none).length, LAB_ACTIONS.length + 1);
});

test('a lab with a stored import source is in imported mode', () => {
  assert.equal(projectModeOf(undefined), 'managed');
  assert.equal(projectModeOf({ lab: '/x.unl', state: { nodes: {} } } as { source?: unknown }), 'managed');
  assert.equal(projectModeOf({ source: { lab: '/examples/a.unl' } }), 'imported');
});
