// With --json, every outcome of `msgr send` is one JSON document on stdout; --json and --verbose are the parsed flags, not words found in argv.
// In-process (test/support/in-process.ts): `msgr send` through main() with a Context of the
// test's, against a scriptable server on 127.0.0.1 (send-server.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runInProcess } from '../../../support/in-process.js';
import { assertNoStack, useSendServer } from './send-server.js';

const { server, env, send } = useSendServer();

test('with --json, a command-line error is still one JSON document on stdout', async () => {
  const r = await runInProcess(['send', '--json', '--bogus']);
  assert.equal(r.code, 2);
  assert.deepEqual(JSON.parse(r.stdout), { error: { message: "unknown option '--bogus'", hint: 'See the options with: msgr send --help', exitCode: 2 } });
});

test('with --json, a network failure is one error document without status', async () => {
  server.script({ reset: true });
  const r = await send(['--json']);
  assert.equal(r.code, 6, r.stderr);
  const doc = JSON.parse(r.stdout) as { error: Record<string, unknown> };
  assert.deepEqual(Object.keys(doc.error), ['message', 'hint', 'exitCode']);
  assert.equal(doc.error.exitCode, 6);
  assert.match(String(doc.error.message), /outcome unknown/);
});

describe('--json and --verbose are read from the parsed command, not from argv', () => {
  test('"--json" as the value of --text is the text: the error is not a JSON document', async () => {
    const r = await runInProcess(['send', '--dry-run', '--to', '123', '--from', 'Acme', '--account', 'X', '--text', '--json'], { env: env() });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^error: --to: "123" is a national number/m);
  });

  test('"--json" as the value of --text is sent as the text', async () => {
    const r = await runInProcess(['send', '--dry-run', '--to', '+447911123456', '--from', 'Acme', '--account', 'X', '--text', '--json'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as { body: unknown }).body, { text: '--json' });
  });

  test('"--verbose" as the value of --text shows no stack trace', async () => {
    const r = await runInProcess(['send', '--to', '123', '--from', 'Acme', '--text', '--verbose'], { env: env() });
    assert.equal(r.code, 2, r.stderr);
    assertNoStack(r);
  });

  test('a command-line error after a real --json flag is one JSON document on stdout', async () => {
    const r = await runInProcess(['send', '--bogus', '--json']);
    assert.equal(r.code, 2);
    assert.deepEqual(JSON.parse(r.stdout), { error: { message: "unknown option '--bogus'", hint: 'See the options with: msgr send --help', exitCode: 2 } });
  });

  test('a missing option value after a real --json flag is one JSON document on stdout', async () => {
    const r = await runInProcess(['send', '--json', '--timeout']);
    assert.equal(r.code, 2);
    assert.deepEqual(JSON.parse(r.stdout), { error: { message: "option '--timeout <seconds>' argument missing", hint: 'See the options with: msgr send --help', exitCode: 2 } });
  });
});
