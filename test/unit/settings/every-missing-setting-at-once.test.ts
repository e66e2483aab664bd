// A machine with nothing set up (docs/configuration.md): send and send-bulk name every missing
// setting at once, with a profile and --sandbox as the ways on, each then accepted; a profile
// that lacks some is completed with profile set. In-process, against the scriptable server.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../support/cli.js';
import { runInProcess } from '../../support/in-process.js';
import { useTestServer } from '../../support/test-server.js';

const KEY = 'sk_missing_settings_7788';
const server = useTestServer({ reset: (s) => (s.fallback = { status: 202, body: { batchId: 'b-1', messages: [{ id: 'msg-A1', msisdn: '+447911123456' }, { id: 'msg-B2', msisdn: '+447911123457' }] } }) });

describe('nothing set up', () => {
  test('send names every missing setting at once, with a profile and --sandbox as the ways on (exit 2, nothing sent)', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const r = await runInProcess(['send', '--to', '+447911123456', '--text', 'Hi'], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error: msgr is not set up to send here: no base URL, API key, account or sender$/m);
    for (const line of [/^ {2}base URL {2}--base-url https:\/\/\.\.\., MSGR_BASE_URL, or a profile$/m, /^ {2}API key {3}--api-key-file PATH, --api-key-stdin or MSGR_API_KEY/m, /^ {2}account {3}--account REF, MSGR_ACCOUNT_REFERENCE/m, /^ {2}sender {4}--from SENDER/m]) {
      assert.match(r.stderr, line);
    }
    assert.match(r.stderr, /hint: Save them once: msgr profile add NAME --base-url https:\/\/\.\.\. --account REF --from SENDER/);
    assert.match(r.stderr, /add --sandbox and --from SENDER\.$/m);
    assert.equal(r.stderr.match(/^error:/gm)?.length, 1, 'one error');
    assert.equal(server.requests.length, 0);
    // Each way on is then accepted: the sandbox with --from ...
    const sandbox = await runInProcess(['send', '--sandbox', '--from', 'Acme', '--to', '+447911123456', '--text', 'Hi'], { env });
    assert.equal(sandbox.code, 0, sandbox.stderr);
    // ... and a profile with what it names.
    const add = await runInProcess(['profile', 'add', 'NAME', '--base-url', server.url, '--account', 'REF', '--from', 'SENDER', '--api-key-stdin'], { env, input: `${KEY}\n` });
    assert.equal(add.code, 0, add.stderr);
    const sent = await runInProcess(['send', '--to', '+447911123456', '--text', 'Hi'], { env });
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(server.requests.length, 1);
  });

  test('a profile that lacks two settings is completed with profile set; --json has the one error document', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    assert.equal((await runInProcess(['profile', 'add', 'half', '--api-key-stdin', '--account', 'ACME01'], { env, input: `${KEY}\n` })).code, 0);
    const r = await runInProcess(['send', '--to', '+447911123456', '--text', 'Hi', '--json'], { env });
    assert.equal(r.code, 2);
    const doc = JSON.parse(r.stdout) as { error: { message: string; hint: string; exitCode: number } };
    assert.match(doc.error.message, /no base URL or sender/);
    assert.match(doc.error.hint, /Complete profile "half": msgr profile set half base-url https:\/\/\.\.\.; msgr profile set half from SENDER\./);
    assert.equal(doc.error.exitCode, 2);
  });

  test('send-bulk says the same before it reads the file', async () => {
    const dir = tempDir();
    const csv = join(dir, 'in.csv');
    writeFileSync(csv, 'msisdn\n+447911123456\nnot a number\n');
    const r = await runInProcess(['send-bulk', csv, '--text', 'Hi'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /msgr is not set up to send here: no base URL, API key, account or sender/);
    assert.doesNotMatch(r.stderr, /preflight|not a phone number/);
    // A dry run needs no base URL or key: what it lacks is the account and the sender.
    const dry = await runInProcess(['send-bulk', csv, '--text', 'Hi', '--dry-run'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
    assert.equal(dry.code, 2);
    assert.match(dry.stderr, /not set up to send here: no account or sender\n/);
  });
});
