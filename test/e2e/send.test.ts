// `msgr send` end to end: the built CLI against a scriptable server on 127.0.0.1.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, msgrCommand, runCli, tempDir, type RunResult } from '../support/cli.js';
import { startTestServer, useTestServer } from '../support/test-server.js';

const KEY = 'sk_test_abcdefgh12345678';
const server = useTestServer({
  reset: (s) => {
    s.fallback = { status: 202, body: { id: 'msg-1', status: 'accepted' } };
  },
});

function env(extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

const BASIC = ['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'Hello there'];

function send(args: string[] = [], extraEnv: Record<string, string | undefined> = {}, input?: string): Promise<RunResult> {
  return runCli([...BASIC, ...args], { env: env(extraEnv), ...(input !== undefined ? { input } : {}) });
}

function assertNoKey(r: RunResult): void {
  assert.ok(!r.stdout.includes(KEY), 'API key leaked on stdout');
  assert.ok(!r.stderr.includes(KEY), 'API key leaked on stderr');
}

function assertNoStack(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
}

describe('a successful send', () => {
  test('posts the spec request with the key header and prints the response', async () => {
    const r = await send();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests.length, 1);
    const req = server.requests[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/v2/messages');
    assert.equal(req.headers['x-api-key'], KEY);
    assert.equal(req.headers['content-type'], 'application/json');
    assert.match(String(req.headers['user-agent']), /^msgr\/\d+\.\d+\.\d+ node\/v\d+/);
    assert.match(String(req.headers['idempotency-key']), /^msgr-[0-9a-f-]{36}$/);
    assert.deepEqual(req.json, {
      accountReference: 'ACME01',
      channel: 'SMS',
      from: 'Acme',
      body: { text: 'Hello there' },
      recipients: [{ msisdn: '+447911123456' }],
    });
    assert.deepEqual(JSON.parse(r.stdout), { id: 'msg-1', status: 'accepted' });
    assert.match(r.stderr, /accepted by the API \(HTTP 202\)/);
    assert.match(r.stderr, /not yet delivered/);
    assertNoKey(r);
  });

  test('--json prints exactly one JSON document and nothing else on stdout', async () => {
    const r = await send(['--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { id: 'msg-1', status: 'accepted' });
  });

  test('--quiet keeps stderr empty on success', async () => {
    const r = await send(['-q']);
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
  });

  test('an empty 204 or a non-JSON 200 is still success', async () => {
    server.script({ status: 204 }, { status: 200, body: 'OK queued', headers: { 'content-type': 'text/plain' } });
    const empty = await send(['--json']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.deepEqual(JSON.parse(empty.stdout), { accepted: true, status: 204, text: '' });
    const text = await send();
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout.trim(), 'OK queued');
  });

  test('a 2xx whose body is cut short is still accepted (exit 0), not retried', async () => {
    server.script({ status: 202, cutBody: true });
    const r = await send(['--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests.length, 1);
    assert.deepEqual(JSON.parse(r.stdout), { accepted: true, status: 202, text: '' });
  });

  test('every message flag lands in its spec field', async () => {
    // The sender is the one --from (a second would be refused: the repeated-flag test below).
    const r = await runCli([
      'send', '--to', '+447911123456', '--text', 'Hello there',
      '--to', '+33612345678,+4915112345678', '--channel', 'rcs', '--from', 'acme_agent',
      '--var', 'name=Ann', '--var', 'code=a=b', '--meta', 'campaign=winter', '--name', 'Winter',
      '--character-set', 'GSM', '--message-type', 'promo', '--validity', '2h', '--contact', 'c-1', '--contact', 'c-2,c-3',
    ], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const body = server.requests[0]!.json as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['accountReference', 'name', 'characterSet', 'channel', 'from', 'validity', 'messageType', 'body', 'recipients', 'addressBook', 'metaData']);
    assert.equal(body.channel, 'RCS');
    assert.deepEqual(body.recipients, [
      { msisdn: '+447911123456', variables: { name: 'Ann', code: 'a=b' } },
      { msisdn: '+33612345678', variables: { name: 'Ann', code: 'a=b' } },
      { msisdn: '+4915112345678', variables: { name: 'Ann', code: 'a=b' } },
    ]);
    assert.deepEqual(body.addressBook, { contacts: [{ id: 'c-1' }, { id: 'c-2' }, { id: 'c-3' }] });
    assert.deepEqual(body.metaData, { campaign: 'winter' });
    assert.match(String(body.validity), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
    const ms = Date.parse(String(body.validity)) - Date.now();
    assert.ok(ms > 7_100_000 && ms <= 7_200_000, `validity 2h from now, got ${ms} ms`);
  });

  test('a flag that takes one value, given twice, is refused (exit 2, nothing sent); the repeatable ones add up', async () => {
    const held = server.requests.length;
    const twice = await send(['--from', 'Other']);
    assert.equal(twice.code, 2);
    assert.equal(twice.stderr, "error: option '--from <sender>' was given twice: it takes one value, and msgr does not choose between them\nhint: Give it once. The options that take several values say \"repeatable\" in: msgr send --help\n");
    const files = tempDir();
    writeFileSync(join(files, 'a.txt'), 'one');
    writeFileSync(join(files, 'b.txt'), 'two');
    const json = await runCli(['send', '--to', '+447911123456', '--from', 'Acme', '--text-file', join(files, 'a.txt'), `--text-file=${join(files, 'b.txt')}`, '--json'], { env: env() });
    assert.equal(json.code, 2);
    assert.deepEqual(JSON.parse(json.stdout), { error: { message: "option '--text-file <path>' was given twice: it takes one value, and msgr does not choose between them", hint: 'Give it once. The options that take several values say "repeatable" in: msgr send --help', exitCode: 2 } });
    assert.equal(server.requests.length, held, 'nothing was sent');
    // Without a value, a flag given twice asks the same thing twice.
    const quiet = await send(['-q', '--quiet', '--json']);
    assert.equal(quiet.code, 0, quiet.stderr);
  });

  test('text comes from stdin when piped, and from --text-file', async () => {
    const piped = await runCli(['send', '--to', '+447911123456', '--from', 'Acme'], { env: env(), input: 'Piped text\n' });
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual((server.requests[0]!.json as { body: unknown }).body, { text: 'Piped text' });
    const file = join(tempDir(), 'msg.txt');
    writeFileSync(file, 'From a file\nsecond line\n');
    const fromFile = await runCli(['send', '--to', '+447911123456', '--from', 'Acme', '--text-file', file], { env: env() });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.deepEqual((server.requests[1]!.json as { body: unknown }).body, { text: 'From a file\nsecond line' });
  });

  test('piped text is read as --text-file - reads it: a byte-order mark (Windows editors) is not sent', async () => {
    const piped = await runCli(['send', '--to', '+447911123456', '--from', 'Acme'], { env: env(), input: '\uFEFFCaf\u00e9 at 5\r\n' });
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual((server.requests[0]!.json as { body: unknown }).body, { text: 'Caf\u00e9 at 5' });
  });

  test('--input gives a whole request and flags override its fields', async () => {
    const file = join(tempDir(), 'req.json');
    writeFileSync(file, JSON.stringify({
      accountReference: 'FROMFILE', channel: 'SMS', from: 'FileSender', body: { templateId: 'tpl-1' },
      recipients: [{ msisdn: '+447911123456', variables: { a: '1' } }], metaData: { k: 'v' },
    }));
    const r = await runCli(['send', '--input', file, '--from', 'FlagSender', '--meta', 'x=y'], { env: env({ MSGR_ACCOUNT_REFERENCE: undefined }) });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(server.requests[0]!.json, {
      accountReference: 'FROMFILE', channel: 'SMS', from: 'FlagSender', body: { templateId: 'tpl-1' },
      recipients: [{ msisdn: '+447911123456', variables: { a: '1' } }], metaData: { k: 'v', x: 'y' },
    });
  });

  test('numbers are normalised to E.164', async () => {
    const r = await runCli(['send', '--to', '0044 7911 123456', '--to', '(07911) 123-457', '--to', '07400 900123', '--default-country', 'gb', '--from', 'Acme', '--text', 'x'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const recipients = (server.requests[0]!.json as { recipients: Array<{ msisdn: string }> }).recipients.map((x) => x.msisdn);
    assert.deepEqual(recipients, ['+447911123456', '+447911123457', '+447400900123']);
    assert.doesNotMatch(r.stderr, /warning/);
  });

  test('numbers outside the numbering plan are refused with why (a digit short, the drama range); --allow-unlisted-numbers sends only the one in no range', async () => {
    const args = ['send', '--to', '07911 12345', '--to', '+447700900123', '--to', '+447911123456', '--default-country', 'GB', '--from', 'Acme', '--text', 'x'];
    const r = await runCli(args, { env: env() });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0, 'nothing was sent');
    assert.match(r.stderr, /--to \(recipient 1\): "07911 12345" is \+44791112345, too short for a \+44 \(United Kingdom\) number: one digit missing\?/);
    assert.match(r.stderr, /--to \(recipient 2\): \+447700900123 is not in the numbering plan of \+44 \(United Kingdom\)/);
    // The flag is named once, for the number in no range; the mistyped one is only to be checked.
    assert.equal(r.stderr.match(/--allow-unlisted-numbers/g)?.length, 1, r.stderr);
    assert.match(r.stderr, /a digit missing or one too many/);
    const still = await runCli([...args, '--allow-unlisted-numbers'], { env: env() });
    assert.equal(still.code, 2, still.stderr);
    assert.match(still.stderr, /--to \(recipient 1\): "07911 12345" is \+44791112345, too short/);
    assert.doesNotMatch(still.stderr, /recipient 2/);
    assert.equal(server.requests.length, 0, 'nothing was sent');
    const allowed = await runCli(['send', '--to', '+447700900123', '--to', '+447911123456', '--from', 'Acme', '--text', 'x', '--allow-unlisted-numbers'], { env: env() });
    assert.equal(allowed.code, 0, allowed.stderr);
    const recipients = (server.requests[0]!.json as { recipients: Array<{ msisdn: string }> }).recipients.map((x) => x.msisdn);
    assert.deepEqual(recipients, ['+447700900123', '+447911123456']);
    assert.doesNotMatch(allowed.stderr, /warning/);
  });
});

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
      const r = await runCli(args, { env: env() });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(server.requests.length, 0);
      assertNoStack(r);
      assertNoKey(r);
    });
  }

  test('missing account: exit 2 naming the flag and the variable', async () => {
    const r = await runCli(BASIC, { env: env({ MSGR_ACCOUNT_REFERENCE: undefined }) });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--account: accountReference is required/);
    assert.match(r.stderr, /MSGR_ACCOUNT_REFERENCE/);
    assert.equal(server.requests.length, 0);
  });

  test('several problems are listed together', async () => {
    const r = await runCli(['send', '--to', '+44123', '--channel', 'voice'], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--channel: voice is not available yet/);
    assert.match(r.stderr, /--to: "\+44123" cannot be a phone number/);
    assert.match(r.stderr, /no message/);
  });

  test('an unknown field in --input is refused with its path', async () => {
    const file = join(tempDir(), 'req.json');
    writeFileSync(file, JSON.stringify({ from: 'Acme', body: { text: 'x', html: '<b>' }, recipients: [{ msisdn: '+447911123456' }] }));
    const r = await runCli(['send', '--input', file], { env: env() });
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

describe('HTTP errors map to the contract exit codes', () => {
  test('401 → exit 3 with the status and the server message; --json puts the error body on stdout', async () => {
    server.script({ status: 401, body: { type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'API key not recognised' }, headers: { 'content-type': 'application/problem+json' } });
    const r = await send(['--json']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /HTTP 401/);
    assert.match(r.stderr, /API key not recognised/);
    const doc = JSON.parse(r.stdout) as { error: { message: string; hint: string; exitCode: number; status: number; body: { detail: string } } };
    assert.deepEqual(Object.keys(doc.error), ['message', 'hint', 'exitCode', 'status', 'body']);
    assert.equal(doc.error.exitCode, 3);
    assert.equal(doc.error.status, 401);
    assert.match(doc.error.message, /HTTP 401/);
    assert.match(doc.error.hint, /API key/);
    assert.equal(doc.error.body.detail, 'API key not recognised');
    assert.equal(server.requests.length, 1);
    assertNoKey(r);
    assertNoStack(r);
  });

  test('403 → exit 3', async () => {
    server.script({ status: 403, body: { message: 'account suspended' } });
    const r = await send();
    assert.equal(r.code, 3);
    assert.match(r.stderr, /account suspended/);
  });

  test('422 problem+json → exit 4 naming the field, not retried', async () => {
    server.script({ status: 422, body: { title: 'Invalid request', errors: [{ field: 'recipients[0].msisdn', message: 'not allowed' }] } });
    const r = await send();
    assert.equal(r.code, 4);
    assert.match(r.stderr, /HTTP 422/);
    assert.match(r.stderr, /recipients\[0\]\.msisdn: not allowed/);
    assert.equal(server.requests.length, 1);
  });

  test('a plain-text error body is shown', async () => {
    server.script({ status: 400, body: 'Bad things happened', headers: { 'content-type': 'text/plain' } });
    const r = await send();
    assert.equal(r.code, 4);
    assert.match(r.stderr, /Bad things happened/);
  });

  test('429 then 202 → retried with the same Idempotency-Key, exit 0', async () => {
    server.script({ status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': '1' } });
    const r = await send();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests.length, 3);
    const keys = new Set(server.requests.map((q) => q.headers['idempotency-key']));
    assert.equal(keys.size, 1);
    assert.match(r.stderr, /retrying in 1\.0 s \(429\)/);
  });

  test('429 that never ends → exit 5 after bounded attempts', async () => {
    server.fallback = { status: 429, headers: { 'retry-after': '0' }, body: { message: 'slow down' } };
    const r = await send();
    assert.equal(r.code, 5);
    assert.equal(server.requests.length, 5);
    assert.match(r.stderr, /not sent: HTTP 429: slow down \(after 5 attempts\)/);
  });

  test('a Retry-After longer than msgr waits (429 asking for 5 min, 503 for 3 min): not retried, exit 5, and the error says when to try again', async () => {
    server.script({ status: 429, headers: { 'retry-after': '300' }, body: { title: 'slow down' } });
    const r = await send(['--json']);
    assert.equal(r.code, 5, r.stderr);
    assert.equal(server.requests.length, 1);
    const e = (JSON.parse(r.stdout) as { error: { message: string; hint: string } }).error;
    assert.equal(e.message, 'not sent: HTTP 429: slow down (the API asks to wait 5 min before trying again; msgr waits at most 120 s)');
    assert.equal(e.hint, 'Try again in 5 min or later, as the API asks (Retry-After). Nothing was sent.');
    server.requests.length = 0;
    server.script({ status: 503, headers: { 'retry-after': new Date(Date.now() + 180_000).toUTCString() }, body: 'maintenance' });
    const later = await send();
    assert.equal(later.code, 5, later.stderr);
    assert.equal(server.requests.length, 1);
    assert.match(later.stderr, /^hint: Try again in 3 min or later, as the API asks/m);
  });

  test('MSGR_API_KEY in quotes (a docker --env-file line keeps them): exit 2 saying so, instead of a key refused by the API (exit 3)', async () => {
    const r = await send([], { MSGR_API_KEY: `"${KEY}"` });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error: env MSGR_API_KEY: the API key is in quotes, which are not part of it$/m);
    assert.equal(server.requests.length, 0);
    assertNoKey(r);
  });

  test('a 3xx is not followed: exit 4, the address it names shown with the key masked, and the hint says to fix the base URL', async () => {
    server.script({ status: 308, headers: { location: `https://moved.example.com/v2/messages?key=${KEY}` } });
    const r = await send(['--json']);
    assert.equal(r.code, 4, r.stderr);
    assert.equal(server.requests.length, 1);
    const e = (JSON.parse(r.stdout) as { error: { message: string; hint: string } }).error;
    assert.equal(e.message, 'the API rejected the request (HTTP 308): unexpected redirect (https://moved.example.com/v2/messages?key=****5678): (no message)');
    assert.match(e.hint, /^msgr does not follow redirects .* make it the base URL \(--base-url, MSGR_BASE_URL or the profile's base-url\)\. Nothing was sent\.$/);
    assertNoKey(r);
  });

  test('503 with Retry-After is retried; 503 without is not (exit 5)', async () => {
    server.script({ status: 503, headers: { 'retry-after': '0' } });
    const ok = await send();
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(server.requests.length, 2);
    server.requests.length = 0;
    server.script({ status: 503, body: 'maintenance' });
    const r = await send();
    assert.equal(r.code, 5);
    assert.equal(server.requests.length, 1);
  });

  for (const status of [500, 502, 504]) {
    test(`${status} → outcome unknown, exit 6, never retried`, async () => {
      server.script({ status, body: '<html>upstream error</html>', headers: { 'content-type': 'text/html' } });
      const r = await send();
      assert.equal(r.code, 6);
      assert.equal(server.requests.length, 1);
      assert.match(r.stderr, /outcome unknown/);
      assert.match(r.stderr, /Check whether the message arrived/);
    });
  }

  test('no answer within --timeout → exit 6, not retried', async () => {
    server.script({ status: 202, delayMs: 3_000 });
    const r = await send(['--timeout', '0.5']);
    assert.equal(r.code, 6);
    assert.equal(server.requests.length, 1);
    assert.match(r.stderr, /timed out waiting for the answer/);
  });

  test('a socket reset after the request → exit 6, not retried', async () => {
    server.script({ reset: true });
    const r = await send();
    assert.equal(r.code, 6);
    assert.equal(server.requests.length, 1);
    assert.match(r.stderr, /connection was closed before an answer came/);
  });

  test('connection refused → exit 5 (never sent), after retries', async () => {
    const closed = await startTestServer();
    const url = closed.url;
    await closed.close();
    const r = await send([], { MSGR_BASE_URL: url });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /connection refused/);
    assert.match(r.stderr, /safe to run the same command again/);
    // Which host could not be reached, and what to check: a cron log has nothing else to go by.
    assert.match(r.stderr, new RegExp(`^error: not sent: cannot reach 127\\.0\\.0\\.1:${new URL(url).port}: connection refused \\(after 3 attempts\\)$`, 'm'));
    assert.match(r.stderr, new RegExp(`^hint: Nothing accepts connections at 127\\.0\\.0\\.1:${new URL(url).port}: check the base URL's host and port, and that the API is up there \\(\`msgr doctor\` checks each step\\)\\. Nothing was sent`, 'm'));
  });

  test('--verbose shows request and response with the key masked', async () => {
    const r = await send(['--verbose']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /> POST http:\/\/127\.0\.0\.1:\d+\/v2\/messages/);
    assert.match(r.stderr, /> x-api-key: \*\*\*\*5678/);
    assert.match(r.stderr, /< 202/);
    assertNoKey(r);
  });

  test('server text with control characters is shown, and the key is never echoed back', async () => {
    server.script({ status: 400, body: { message: `bad key ${KEY}` } });
    const r = await send();
    assert.equal(r.code, 4);
    assert.match(r.stderr, /bad key \*\*\*\*5678/);
    assertNoKey(r);
  });
});

test('a key echoed back in a JSON body never reaches stdout, on success or error', async () => {
  server.script({ status: 202, body: { id: 'm1', echo: `key=${KEY}` } }, { status: 422, body: { detail: `bad key ${KEY}` } });
  const ok = await send(['--json']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), { id: 'm1', echo: 'key=****5678' });
  const bad = await send(['--json']);
  assert.equal(bad.code, 4);
  assert.deepEqual((JSON.parse(bad.stdout) as { error: { body: unknown } }).error.body, { detail: 'bad key ****5678' });
  assertNoKey(ok);
  assertNoKey(bad);
});

/** Starts `msgr send` and resolves once its request has reached the server. */
async function startInFlight(): Promise<{ child: ReturnType<typeof import('node:child_process').spawn>; out: () => string; err: () => string; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }> }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(...msgrCommand([...BASIC, '--json']), { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const started = Date.now();
  while (server.requests.length === 0 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 10));
  assert.equal(server.requests.length, 1, `the request never arrived: ${stderr}`);
  return { child, out: () => stdout, err: () => stderr, exit };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('signals while the request is in flight', () => {
  test('three SIGTERMs 10 ms apart: the answer is waited for and reported, with its exit code', async () => {
    server.script({ status: 202, body: { id: 'late-1' }, delayMs: 800 });
    const run = await startInFlight();
    for (let i = 0; i < 3; i++) {
      run.child.kill('SIGTERM');
      await sleep(10);
    }
    const r = await run.exit;
    assert.equal(r.code, 0, run.err());
    assert.deepEqual(JSON.parse(run.out()), { id: 'late-1' });
    assert.match(run.err(), /SIGTERM received: waiting for the answer to the request in flight \(at most 30 s\)/);
    assert.match(run.err(), /accepted by the API \(HTTP 202\)/);
    assert.equal(server.requests.length, 1);
  });

  test('SIGHUP after the reader closed stdout and stderr: the answer still decides the exit code', async () => {
    server.script({ status: 422, body: { detail: 'bad sender' }, delayMs: 600 });
    const run = await startInFlight();
    run.child.stdout?.destroy();
    run.child.stderr?.destroy();
    run.child.kill('SIGHUP');
    const r = await run.exit;
    // 4: the API's own verdict, not a crash (1) and not a death by SIGHUP.
    assert.equal(r.signal, null);
    assert.equal(r.code, 4);
    assert.equal(server.requests.length, 1);
  });

  test('a retry not yet started is dropped on SIGTERM: not sent (exit 5), no second attempt', async () => {
    server.script({ status: 429, headers: { 'retry-after': '5' }, body: { title: 'slow down' } });
    const run = await startInFlight();
    await sleep(200);
    run.child.kill('SIGTERM');
    const r = await run.exit;
    assert.equal(r.code, 5, run.err());
    assert.equal(server.requests.length, 1);
  });

  test('Ctrl-C waits for the answer; a second Ctrl-C quits at once and says so: the outcome is unknown (exit 6), not "interrupted, nothing sent"', async () => {
    server.script({ status: 202, delayMs: 10_000 });
    const run = await startInFlight();
    run.child.kill('SIGINT');
    await sleep(300);
    assert.match(run.err(), /interrupted: waiting for the answer to the request in flight/);
    const second = Date.now();
    run.child.kill('SIGINT');
    const r = await run.exit;
    assert.equal(r.code, 6, run.err());
    assert.ok(r.at - second < 1_000, `took ${r.at - second} ms after the second Ctrl-C`);
    assert.match(run.err(), /msgr: interrupted: the request sent is left without its answer \(its outcome is unknown\)/);
    // Under --json, one document on stdout still says what happened.
    const doc = JSON.parse(run.out()) as { error: { message: string; exitCode: number; hint: string } };
    assert.equal(doc.error.exitCode, 6);
    assert.equal(doc.error.message, 'interrupted: quit at once, without waiting for the answer to the request in flight');
    // A single send has no run to show or resume: the hint says what is true of it.
    assert.match(doc.error.hint, /check whether it arrived before sending it again/);
    assert.doesNotMatch(doc.error.hint, /runs show|--resume/);
  });
});

test('msgr --help documents the exit codes', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0);
  for (const code of ['0', '1', '2', '3', '4', '5', '6', '7', '130']) assert.match(r.stdout, new RegExp(`^\\s+${code}\\s+\\S`, 'm'));
});

test('with --json, a command-line error is still one JSON document on stdout', async () => {
  const r = await runCli(['send', '--json', '--bogus']);
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

test('a key with a character no header can carry is refused before anything is sent', async () => {
  const r = await send([], { MSGR_API_KEY: 'sk_live_abc\u200bdef' });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /env MSGR_API_KEY: the API key has characters an HTTP header cannot carry/);
  assert.equal(server.requests.length, 0);
});

test('an unknown option is a usage error (exit 2)', async () => {
  const r = await runCli(['send', '--bogus']);
  assert.equal(r.code, 2);
  // As every error: what went wrong, then what to do.
  assert.equal(r.stderr, "error: unknown option '--bogus'\nhint: See the options with: msgr send --help\n");
  const bare = await runCli(['profile']);
  assert.equal(bare.code, 2);
  assert.doesNotMatch(bare.stderr, /^hint:/m, 'the help shown for a missing subcommand is hint enough');
});

describe('--json and --verbose are read from the parsed command, not from argv', () => {
  test('"--json" as the value of --text is the text: the error is not a JSON document', async () => {
    const r = await runCli(['send', '--dry-run', '--to', '123', '--from', 'Acme', '--account', 'X', '--text', '--json'], { env: env() });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^error: --to: "123" is a national number/m);
  });

  test('"--json" as the value of --text is sent as the text', async () => {
    const r = await runCli(['send', '--dry-run', '--to', '+447911123456', '--from', 'Acme', '--account', 'X', '--text', '--json'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as { body: unknown }).body, { text: '--json' });
  });

  test('"--verbose" as the value of --text shows no stack trace', async () => {
    const r = await runCli(['send', '--to', '123', '--from', 'Acme', '--text', '--verbose'], { env: env() });
    assert.equal(r.code, 2, r.stderr);
    assertNoStack(r);
  });

  test('a command-line error after a real --json flag is one JSON document on stdout', async () => {
    const r = await runCli(['send', '--bogus', '--json']);
    assert.equal(r.code, 2);
    assert.deepEqual(JSON.parse(r.stdout), { error: { message: "unknown option '--bogus'", hint: 'See the options with: msgr send --help', exitCode: 2 } });
  });

  test('a missing option value after a real --json flag is one JSON document on stdout', async () => {
    const r = await runCli(['send', '--json', '--timeout']);
    assert.equal(r.code, 2);
    assert.deepEqual(JSON.parse(r.stdout), { error: { message: "option '--timeout <seconds>' argument missing", hint: 'See the options with: msgr send --help', exitCode: 2 } });
  });
});

test('-q with -v: send and send-bulk give the same usage error (exit 2), with no stack trace', async () => {
  const dir = tempDir();
  const csv = join(dir, 'list.csv');
  writeFileSync(csv, 'msisdn\n+447911123456\n');
  const results = await Promise.all([
    send(['--dry-run', '-q', '-v']),
    runCli(['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--dry-run', '-q', '-v'], { env: env() }),
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
      const r = await runCli([...argv, '--from', 'Acme', '--text-file', empty, '--dry-run'], { env });
      assert.equal(r.code, 2, r.stderr);
      assert.ok(r.stderr.includes(`--text-file ${empty}: the message text is empty`), r.stderr);
    }
  });
});
