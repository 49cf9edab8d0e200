import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAgentUrlInput, tokenSecretKey } from '../../client/model/agent-url';

test('agent URLs are canonical: https, no trailing slash', () => {
  assert.deepEqual(parseAgentUrlInput('https://127.0.0.1:8787/'), { url: 'https://127.0.0.1:8787' });
  assert.deepEqual(parseAgentUrlInput(' 127.0.0.1:8787 '), { url: 'https://127.0.0.1:8787' });
  assert.deepEqual(parseAgentUrlInput('HTTPS://Agent.Example:8787'), { url: 'https://agent.example:8787' });
  assert.deepEqual(parseAgentUrlInput('https://gw.example/lab-agent/'), { url: 'https://gw.example/lab-agent' });
});

test('anything but a plain https URL is refused with a reason', () => {
  const problem = (input: string): string => {
    const parsed = parseAgentUrlInput(input);
    assert.ok('problem' in parsed, input);
    return parsed.problem;
  };
  assert.match(problem(''), /Enter the agent URL/);
  assert.match(problem('http://127.0.0.1:8787'), /HTTPS only: use https:\/\/127\.0\.0\.1:8787/);
  assert.match(problem('https://lab:lab@127.0.0.1:8787'), /user name and password out/);
  assert.match(problem('https://127.0.0.1:8787/?x=1'), /no query/);
  assert.match(problem('https://'), /not a URL/);
});

test('tokens are stored per agent', () => {
  assert.notEqual(tokenSecretKey('https://a:8787'), tokenSecretKey('https://b:8787'));
});
