// What `msgr send` sends and prints when the API accepts it: every flag in its spec field, text from stdin or a file, numbers in E.164, and what an odd 2xx answer still means.
// In-process (test/support/in-process.ts): `msgr send` through main() with a Context of the
// test's, against a scriptable server on 127.0.0.1 (send-server.ts).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useSendServer } from './send-server.js';

const { server, env, send } = useSendServer();

describe('a successful send', () => {
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
    const r = await runInProcess([
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
    const json = await runInProcess(['send', '--to', '+447911123456', '--from', 'Acme', '--text-file', join(files, 'a.txt'), `--text-file=${join(files, 'b.txt')}`, '--json'], { env: env() });
    assert.equal(json.code, 2);
    assert.deepEqual(JSON.parse(json.stdout), { error: { message: "option '--text-file <path>' was given twice: it takes one value, and msgr does not choose between them", hint: 'Give it once. The options that take several values say "repeatable" in: msgr send --help', exitCode: 2 } });
    assert.equal(server.requests.length, held, 'nothing was sent');
    // Without a value, a flag given twice asks the same thing twice.
    const quiet = await send(['-q', '--quiet', '--json']);
    assert.equal(quiet.code, 0, quiet.stderr);
  });

  test('text comes from stdin when piped, and from --text-file', async () => {
    const piped = await runInProcess(['send', '--to', '+447911123456', '--from', 'Acme'], { env: env(), input: 'Piped text\n' });
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual((server.requests[0]!.json as { body: unknown }).body, { text: 'Piped text' });
    const file = join(tempDir(), 'msg.txt');
    writeFileSync(file, 'From a file\nsecond line\n');
    const fromFile = await runInProcess(['send', '--to', '+447911123456', '--from', 'Acme', '--text-file', file], { env: env() });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.deepEqual((server.requests[1]!.json as { body: unknown }).body, { text: 'From a file\nsecond line' });
  });

  test('piped text is read as --text-file - reads it: a byte-order mark (Windows editors) is not sent', async () => {
    const piped = await runInProcess(['send', '--to', '+447911123456', '--from', 'Acme'], { env: env(), input: '\uFEFFCaf\u00e9 at 5\r\n' });
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual((server.requests[0]!.json as { body: unknown }).body, { text: 'Caf\u00e9 at 5' });
  });

  test('--input gives a whole request and flags override its fields', async () => {
    const file = join(tempDir(), 'req.json');
    writeFileSync(file, JSON.stringify({
      accountReference: 'FROMFILE', channel: 'SMS', from: 'FileSender', body: { templateId: 'tpl-1' },
      recipients: [{ msisdn: '+447911123456', variables: { a: '1' } }], metaData: { k: 'v' },
    }));
    const r = await runInProcess(['send', '--input', file, '--from', 'FlagSender', '--meta', 'x=y'], { env: env({ MSGR_ACCOUNT_REFERENCE: undefined }) });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(server.requests[0]!.json, {
      accountReference: 'FROMFILE', channel: 'SMS', from: 'FlagSender', body: { templateId: 'tpl-1' },
      recipients: [{ msisdn: '+447911123456', variables: { a: '1' } }], metaData: { k: 'v', x: 'y' },
    });
  });

  test('numbers are normalised to E.164', async () => {
    const r = await runInProcess(['send', '--to', '0044 7911 123456', '--to', '(07911) 123-457', '--to', '07400 900123', '--default-country', 'gb', '--from', 'Acme', '--text', 'x'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const recipients = (server.requests[0]!.json as { recipients: Array<{ msisdn: string }> }).recipients.map((x) => x.msisdn);
    assert.deepEqual(recipients, ['+447911123456', '+447911123457', '+447400900123']);
    assert.doesNotMatch(r.stderr, /warning/);
  });

  test('numbers outside the numbering plan are refused with why (a digit short, the drama range); --allow-unlisted-numbers sends only the one in no range', async () => {
    const args = ['send', '--to', '07911 12345', '--to', '+447700900123', '--to', '+447911123456', '--default-country', 'GB', '--from', 'Acme', '--text', 'x'];
    const r = await runInProcess(args, { env: env() });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0, 'nothing was sent');
    assert.match(r.stderr, /--to \(recipient 1\): "07911 12345" is \+44791112345, too short for a \+44 \(United Kingdom\) number: one digit missing\?/);
    assert.match(r.stderr, /--to \(recipient 2\): \+447700900123 is not in the numbering plan of \+44 \(United Kingdom\)/);
    // The flag is named once, for the number in no range; the mistyped one is only to be checked.
    assert.equal(r.stderr.match(/--allow-unlisted-numbers/g)?.length, 1, r.stderr);
    assert.match(r.stderr, /a digit missing or one too many/);
    const still = await runInProcess([...args, '--allow-unlisted-numbers'], { env: env() });
    assert.equal(still.code, 2, still.stderr);
    assert.match(still.stderr, /--to \(recipient 1\): "07911 12345" is \+44791112345, too short/);
    assert.doesNotMatch(still.stderr, /recipient 2/);
    assert.equal(server.requests.length, 0, 'nothing was sent');
    const allowed = await runInProcess(['send', '--to', '+447700900123', '--to', '+447911123456', '--from', 'Acme', '--text', 'x', '--allow-unlisted-numbers'], { env: env() });
    assert.equal(allowed.code, 0, allowed.stderr);
    const recipients = (server.requests[0]!.json as { recipients: Array<{ msisdn: string }> }).recipients.map((x) => x.msisdn);
    assert.deepEqual(recipients, ['+447700900123', '+447911123456']);
    assert.doesNotMatch(allowed.stderr, /warning/);
  });
});
