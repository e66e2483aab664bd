// Every mistake `msgr send` can see is refused before anything is sent (exit 2), with what went wrong and what to do.
// In-process (test/support/in-process.ts): `msgr send` through main() with a Context of the
// test's, against a scriptable server on 127.0.0.1 (send-server.ts).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { assertNoKey, assertNoStack, BASIC, useSendServer } from './send-server.js';

const { server, env, send } = useSendServer();

describe('validation happens before anything is sent', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['impossible number', ['send', '--to', '+44123', '--from', 'Acme', '--text', 'x'], /--to: "\+44123" cannot be a phone number \(too short\)/],
    ['unknown country code', ['send', '--to', '+999123456789', '--from', 'Acme', '--text', 'x'], /cannot be a phone number \(unknown country code\)/],
    ['national number without country', ['send', '--to', '07911 123456', '--from', 'Acme', '--text', 'x'], /national number.*--default-country/],
    ['WhatsApp', [...BASIC, '--channel', 'whatsapp'], /--channel: whatsapp is not available yet/],
    ['unknown channel', [...BASIC, '--channel', 'fax'], /--channel: "fax" is not a channel; use SMS or RCS/],
    ['text and template', [...BASIC, '--template', 't1'], /either text or a template, not both/],
    ['no recipient', ['send', '--from', 'Acme', '--text', 'x'], /no recipients: give --to or --contact/],
    ['long SMS sender', ['send', '--to', '+447911123456', '--from', 'AcmeCorporation', '--text', 'x'], /--from: sender "AcmeCorporation" is 15 characters/],
    ['past validity', [...BASIC, '--validity', '2020-01-01T00:00:00Z'], /--validity: 2020-01-01T00:00:00\.000\+00:00 is in the past/],
    ['bad validity', [...BASIC, '--validity', 'tomorrow'], /--validity: "tomorrow" is neither an ISO 8601 time/],
    ['bad --var', [...BASIC, '--var', 'novalue'], /--var: "novalue" is not key=value/],
    ['bad timeout', [...BASIC, '--timeout', 'soon'], /--timeout: "soon" is not a number of seconds/],
    ['bad country', [...BASIC, '--default-country', 'XX'], /--default-country: "XX" is not a country code/],
  ];
  for (const [name, args, message] of cases) {
    test(`${name}: exit 2, clear message, nothing sent`, async () => {
      const r = await runInProcess(args, { env: env() });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(server.requests.length, 0);
      assertNoStack(r);
      assertNoKey(r);
    });
  }

  test('missing account: exit 2 naming the flag and the variable', async () => {
    const r = await runInProcess(BASIC, { env: env({ MSGR_ACCOUNT_REFERENCE: undefined }) });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--account: accountReference is required/);
    assert.match(r.stderr, /MSGR_ACCOUNT_REFERENCE/);
    assert.equal(server.requests.length, 0);
  });

  test('several problems are listed together', async () => {
    const r = await runInProcess(['send', '--to', '+44123', '--channel', 'voice'], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--channel: voice is not available yet/);
    assert.match(r.stderr, /--to: "\+44123" cannot be a phone number/);
    assert.match(r.stderr, /no message/);
  });

  test('an unknown field in --input is refused with its path', async () => {
    const file = join(tempDir(), 'req.json');
    writeFileSync(file, JSON.stringify({ from: 'Acme', body: { text: 'x', html: '<b>' }, recipients: [{ msisdn: '+447911123456' }] }));
    const r = await runInProcess(['send', '--input', file], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /body: unknown field html/);
    assert.equal(server.requests.length, 0);
  });

  test('--dry-run prints the request, never the key, and sends nothing', async () => {
    const r = await send(['--dry-run', '--verbose']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      accountReference: 'ACME01', channel: 'SMS', from: 'Acme', body: { text: 'Hello there' }, recipients: [{ msisdn: '+447911123456' }],
    });
    assert.match(r.stderr, /nothing was sent/);
    assert.equal(server.requests.length, 0);
    assertNoKey(r);
  });

  test('plain http to a non-loopback host is refused before connecting', async () => {
    const r = await send([], { MSGR_BASE_URL: 'http://api.example.com' });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /MSGR_BASE_URL: refusing to send the API key over plain http to api\.example\.com/);
  });

  test('no API key: exit 2 with the ways to give one', async () => {
    const r = await send([], { MSGR_API_KEY: undefined });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no API key/);
    assert.match(r.stderr, /--api-key-file/);
    assert.equal(server.requests.length, 0);
  });

  test('the key can come from --api-key-file and --api-key-stdin', async () => {
    const file = join(tempDir(), 'key');
    writeFileSync(file, 'file-key-9876\n');
    const a = await send(['--api-key-file', file], { MSGR_API_KEY: 'env-key-0000' });
    assert.equal(a.code, 0, a.stderr);
    assert.equal(server.requests[0]!.headers['x-api-key'], 'file-key-9876');
    const b = await send(['--api-key-stdin'], { MSGR_API_KEY: undefined }, 'stdin-key-5555\n');
    assert.equal(b.code, 0, b.stderr);
    assert.equal(server.requests[1]!.headers['x-api-key'], 'stdin-key-5555');
  });
});

test('a key with a character no header can carry is refused before anything is sent', async () => {
  const r = await send([], { MSGR_API_KEY: 'sk_live_abc\u200bdef' });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /env MSGR_API_KEY: the API key has characters an HTTP header cannot carry/);
  assert.equal(server.requests.length, 0);
});

test('an unknown option is a usage error (exit 2)', async () => {
  const r = await runInProcess(['send', '--bogus']);
  assert.equal(r.code, 2);
  // As every error: what went wrong, then what to do.
  assert.equal(r.stderr, "error: unknown option '--bogus'\nhint: See the options with: msgr send --help\n");
  const bare = await runInProcess(['profile']);
  assert.equal(bare.code, 2);
  assert.doesNotMatch(bare.stderr, /^hint:/m, 'the help shown for a missing subcommand is hint enough');
});

test('-q with -v: send and send-bulk give the same usage error (exit 2), with no stack trace', async () => {
  const dir = tempDir();
  const csv = join(dir, 'list.csv');
  writeFileSync(csv, 'msisdn\n+447911123456\n');
  const results = await Promise.all([
    send(['--dry-run', '-q', '-v']),
    runInProcess(['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--dry-run', '-q', '-v'], { env: env() }),
  ]);
  for (const r of results) {
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^error: --quiet and --verbose cannot be used together\n/);
    assertNoStack(r);
  }
  assert.equal(results[0].stderr, results[1].stderr);
  assert.equal(server.requests.length, 0);
});

describe('an empty --text-file', () => {
  test('send and send-bulk name --text-file and the file, not --text (exit 2, nothing sent)', async () => {
    const dir = tempDir();
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    const csv = join(dir, 'list.csv');
    writeFileSync(csv, 'phone\n+447911123456\n');
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_ACCOUNT_REFERENCE: 'ACME01' });
    for (const argv of [['send', '--to', '+447911123456'], ['send-bulk', csv]]) {
      const r = await runInProcess([...argv, '--from', 'Acme', '--text-file', empty, '--dry-run'], { env });
      assert.equal(r.code, 2, r.stderr);
      assert.ok(r.stderr.includes(`--text-file ${empty}: the message text is empty`), r.stderr);
    }
  });
});
