// What a new user sees first on a terminal (a pseudo-terminal of util-linux `script`): `msgr send`'s
// short result, not the API's JSON, and `msgr runs list` at the terminal's width. What needs no
// terminal is proved in-process, the setups here too: a script's stdout unchanged
// (test/unit/commands/send/answer-for-scripts.test.ts), every missing setting at once
// (test/unit/settings/every-missing-setting-at-once.test.ts), runs list in 80 columns
// (test/unit/commands/runs/list-fits-80-columns.test.ts).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runInProcess } from '../support/in-process.js';
import { oneProfileWith } from '../support/profile-home.js';
import { useTestServer } from '../support/test-server.js';
import { hasScript, runTty } from '../support/tty.js';

const KEY = 'sk_first_impressions_7788';
const server = useTestServer({
  reset: (s) => {
    s.fallback = { status: 202, body: { batchId: 'b-1', messages: [{ id: 'msg-A1', msisdn: '+447911123456' }, { id: 'msg-B2', msisdn: '+447911123457' }] } };
  },
});

const TWO = ['send', '--to', '+447911123456,+447911123457', '--text', 'Your order has shipped'];

describe('msgr send on a terminal', { skip: hasScript ? false : 'util-linux script is not installed' }, () => {
  test('a short result: recipients, message ids, profile and account; not the JSON', async () => {
    const env = await oneProfileWith(runInProcess, server.url, KEY);
    const r = await runTty(TWO, env);
    assert.equal(r.code, 0, r.output);
    const out = r.output.replace(/\r/g, '');
    assert.match(out, /Accepted for 2 recipients \(HTTP 202\); accepted is not yet delivered\./);
    assert.match(out, /^ {2}message id {2}msg-A1 {2}\+447911123456$/m);
    assert.match(out, /^ {2}message id {2}msg-B2 {2}\+447911123457$/m);
    assert.match(out, /^ {2}profile {5}prod \(the default profile\)$/m);
    assert.match(out, /^ {2}account {5}ACME01$/m);
    assert.match(out, new RegExp(`^ {2}sent to {5}${new URL(server.url).host}$`, 'm'));
    assert.doesNotMatch(out, /"batchId"|\{$/m, 'the API\'s answer is shown only with --json or --verbose');
    assert.ok(!out.includes(KEY));
    assert.equal(server.requests.length, 1);
  });

  test('--verbose and --json still show the API\'s answer; --json alone, without the lines', async () => {
    const env = await oneProfileWith(runInProcess, server.url, KEY);
    const verbose = (await runTty([...TWO, '--verbose'], env)).output.replace(/\r/g, '');
    assert.match(verbose, /"batchId": "b-1"/);
    assert.match(verbose, /message id {2}msg-A1/);
    const json = await runTty([...TWO, '--json', '-q'], env);
    assert.equal(json.code, 0, json.output);
    assert.match(json.output, /"batchId": "b-1"/);
    assert.doesNotMatch(json.output, /message id/);
  });

  test('where the settings came from: env and no profile; the sandbox', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ENV01', MSGR_API_KEY: KEY });
    const r = (await runTty([...TWO, '--from', 'Acme'], env)).output.replace(/\r/g, '');
    assert.match(r, /^ {2}profile {5}none: flags and environment$/m);
    assert.match(r, /^ {2}account {5}ENV01 \(env MSGR_ACCOUNT_REFERENCE\)$/m);
    const sandbox = await runTty(['send', '--sandbox', '--to', '+447911123456', '--from', 'Acme', '--text', 'Hi'], cleanEnv({ MSGR_CONFIG_DIR: tempDir() }));
    assert.equal(sandbox.code, 0, sandbox.output);
    assert.match(sandbox.output, /message id {2}sbx_m_\w+_0 {2}\+447911123456/);
    assert.match(sandbox.output, /account {5}SANDBOX \(the sandbox's\)/);
    assert.match(sandbox.output, /sent to {5}the built-in sandbox; nothing is delivered/);
  });
});

describe('msgr runs list on a terminal', () => {
  test('on a terminal of 100 columns a campaign key is shown whole', { skip: hasScript ? false : 'util-linux script is not installed' }, async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const file = join(tempDir('msgr-runs-keys-'), 'today.csv');
    writeFileSync(file, 'msisdn\n+447911123451\n+447911123461\n');
    const r = await runInProcess(['send-bulk', file, '--sandbox', '--from', 'Clinic', '--text', 'Hi', '--account', 'CLINIC01', '--once', 'reminders-2026-12-02', '--yes', '-q'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match((await runTty(['runs', 'list'], env, [], { columns: 100 })).output, /today\.csv +reminders-2026-12-02 +sandbox/);
  });

  test('on a wider terminal the names get the room', { skip: hasScript ? false : 'util-linux script is not installed' }, async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const dir = tempDir();
    const file = join(dir, 'a-very-long-file-name-for-the-autumn-campaign-export-v3.csv');
    writeFileSync(file, 'msisdn\n+447911123456\n');
    assert.equal((await runInProcess(['send-bulk', file, '--from', 'Acme', '--text', 'Hi', '--sandbox'], { env })).code, 0);
    const narrow = await runTty(['runs', 'list'], env, [], { columns: 80 });
    assert.match(narrow.output, /a-very-lo\S*…\S*-v3\.csv/);
    const wide = await runTty(['runs', 'list'], env, [], { columns: 160 });
    assert.match(wide.output, /a-very-long-file-name-for-the-autumn-campaign-export-v3\.csv/);
  });
});
