/** What can be captured in a lab (client/capture/targets.ts) and what the user is told when a capture ends. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { captureChoices, linkCaptureTarget } from '../../client/capture/targets';
import { endingText } from '../../client/capture/ending';

const end = (text: string) => {
  const colon = text.indexOf(':');
  return colon < 0 ? { text, network: text } : { text, node: text.slice(0, colon), interface: text.slice(colon + 1) };
};
const links = [
  { endpoints: [end('r1:eth1'), end('r2:eth1')] },
  { endpoints: [end('mgmt'), end('r1:eth2')] },
  { endpoints: [end('h1:eth0'), end('r1:eth3')] },
  { endpoints: [end('r2:'), end('mgmt')] },
];

test('a link is captured on its first node:interface end; a link without one offers nothing', () => {
  assert.equal(linkCaptureTarget(links[0]), 'r1:eth1');
  assert.equal(linkCaptureTarget(links[1]), 'r1:eth2');
  assert.equal(linkCaptureTarget(links[3]), undefined);
  assert.deepEqual(
    captureChoices(links).map((c) => [c.target, c.link]),
    [
      ['r1:eth1', 'r1:eth1 -- r2:eth1'],
      ['r1:eth2', 'mgmt -- r1:eth2'],
      ['h1:eth0', 'h1:eth0 -- r1:eth3'],
    ],
  );
});

test("a node's choices are its interfaces on links, each once", () => {
  assert.deepEqual(
    captureChoices([...links, links[0]], 'r1').map((c) => c.target),
    ['r1:eth1', 'r1:eth2', 'r1:eth3'],
  );
  assert.deepEqual(captureChoices(links, 'nobody'), []);
});

test('how a capture ended is said in words, the file kept on a failure', () => {
  assert.equal(endingText({ by: 'user' }), 'Capture stopped.');
  assert.match(endingText({ by: 'agent', reason: 'node_stopped' }), /a captured node stopped/);
  assert.match(endingText({ by: 'agent', reason: 'something_new' }), /something_new/);
  assert.match(
    endingText({ by: 'lost', error: new Error('socket hang up') }),
    /connection to the agent was lost mid-capture \(socket hang up\).* The file keeps every packet/,
  );
  assert.match(
    endingText({ by: 'error', error: new Error('ENOSPC: no space left on device') }),
    /file could not be written \(ENOSPC.*\); the capture was stopped/,
  );
});
