import { test } from 'node:test';
import assert from 'node:assert/strict';
import { consoleFamily, errorLookingLine, execManySummary } from '../../client/model/output-errors';

test('console families are guessed from templates, and unknown ones stay unknown', () => {
  assert.equal(consoleFamily('vios'), 'ios');
  assert.equal(consoleFamily('iol'), 'ios');
  assert.equal(consoleFamily('csr1000vng'), 'ios');
  assert.equal(consoleFamily('linux'), 'shell');
  assert.equal(consoleFamily('vpcs'), 'vpcs');
  assert.equal(consoleFamily('mystery-box'), undefined);
  assert.equal(consoleFamily(undefined), undefined);
});

test('a shell that does not know the command', () => {
  const out = 'show version\r\n-bash: show: command not found\r\nroot@pc1:~# ';
  assert.equal(errorLookingLine(out, 'shell'), '-bash: show: command not found');
  // An IOS console would never say that: its patterns do not match.
  assert.equal(errorLookingLine(out, 'ios'), undefined);
  // Unknown family: every family's patterns apply.
  assert.equal(errorLookingLine(out, undefined), '-bash: show: command not found');
});

test('IOS refusals, with the caret line or without', () => {
  const out = "r1#show verison\n         ^\n% Invalid input detected at '^' marker.\n\nr1#";
  assert.equal(errorLookingLine(out, 'ios'), "% Invalid input detected at '^' marker.");
  assert.equal(errorLookingLine('r1#sh\n% Ambiguous command:  "sh"\nr1#', 'ios'), '% Ambiguous command:  "sh"');
  assert.equal(errorLookingLine('r1#show ip\n% Incomplete command.\n', 'ios'), '% Incomplete command.');
});

test('ordinary outputs do not look like errors', () => {
  const version =
    'Cisco IOS Software, IOSv Software (VIOS-ADVENTERPRISEK9-M), Version 15.9(3)M6\nr1 uptime is 1 minute\n';
  assert.equal(errorLookingLine(version, 'ios'), undefined);
  assert.equal(errorLookingLine(version, undefined), undefined);
  const ls = 'total 8\ndrwxr-xr-x 2 root root 4096 Jan  1 00:00 found\n';
  assert.equal(errorLookingLine(ls, 'shell'), undefined);
  assert.equal(errorLookingLine('VPCS> show ip\nNAME   : VPCS[1]\n', 'vpcs'), undefined);
});

test('the summary of a run on many nodes names the outputs that look like errors, without calling them failures', () => {
  assert.equal(
    execManySummary('show version', 'campus', 6, 0, []),
    'Ran "show version" on 6 node(s) of campus: 6 answered.',
  );
  const text = execManySummary('show version', 'campus', 6, 1, ['pc1: -bash: show: command not found']);
  assert.match(text, /5 answered, 1 failed\. One output looks like an error \(pc1: -bash: show: command not found\)/);
  assert.doesNotMatch(text, /succeeded/);
  const many = execManySummary('x', 'lab', 5, 0, ['a: 1', 'b: 2', 'c: 3', 'd: 4']);
  assert.match(many, /4 outputs look like an error \(a: 1; b: 2; c: 3; …\)/);
});
