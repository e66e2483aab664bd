// What a new user sees first: `msgr send` on a terminal (a short result, not the API's JSON; a
// script's stdout unchanged), a machine with nothing set up (every missing setting at once, and
// the two ways on), and `msgr runs list` in 80 columns.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { useTestServer } from '../support/test-server.js';
import { hasScript, runTty } from '../support/tty.js';

const KEY = 'sk_first_impressions_7788';
const server = useTestServer({
  reset: (s) => {
    s.fallback = { status: 202, body: { batchId: 'b-1', messages: [{ id: 'msg-A1', msisdn: '+447911123456' }, { id: 'msg-B2', msisdn: '+447911123457' }] } };
  },
});

/** A machine with one profile, `prod`, the default, against the test server. */
async function withProfile(): Promise<Record<string, string>> {
  const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
  const add = await runCli(['profile', 'add', 'prod', '--api-key-stdin', '--account', 'ACME01', '--base-url', server.url, '--from', 'Acme'], { env, input: `${KEY}\n` });
  assert.equal(add.code, 0, add.stderr);
  return env;
}

const TWO = ['send', '--to', '+447911123456,+447911123457', '--text', 'Your order has shipped'];

describe('msgr send on a terminal', { skip: hasScript ? false : 'util-linux script is not installed' }, () => {
  test('a short result: recipients, message ids, profile and account; not the JSON', async () => {
    const env = await withProfile();
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
    const env = await withProfile();
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

test('into a pipe or a file, msgr send prints the API\'s answer as before (scripts do not break)', async () => {
  const env = await withProfile();
  const r = await runCli(TWO, { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { batchId: string }).batchId, 'b-1');
  assert.match(r.stderr, /accepted by the API \(HTTP 202\) for 2 recipients/);
  assert.doesNotMatch(r.stdout, /message id/);
});

describe('nothing set up', () => {
  test('send names every missing setting at once, with a profile and --sandbox as the ways on (exit 2, nothing sent)', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const r = await runCli(['send', '--to', '+447911123456', '--text', 'Hi'], { env });
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
    const sandbox = await runCli(['send', '--sandbox', '--from', 'Acme', '--to', '+447911123456', '--text', 'Hi'], { env });
    assert.equal(sandbox.code, 0, sandbox.stderr);
    // ... and a profile with what it names.
    const add = await runCli(['profile', 'add', 'NAME', '--base-url', server.url, '--account', 'REF', '--from', 'SENDER', '--api-key-stdin'], { env, input: `${KEY}\n` });
    assert.equal(add.code, 0, add.stderr);
    const sent = await runCli(['send', '--to', '+447911123456', '--text', 'Hi'], { env });
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(server.requests.length, 1);
  });

  test('a profile that lacks two settings is completed with profile set; --json has the one error document', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    assert.equal((await runCli(['profile', 'add', 'half', '--api-key-stdin', '--account', 'ACME01'], { env, input: `${KEY}\n` })).code, 0);
    const r = await runCli(['send', '--to', '+447911123456', '--text', 'Hi', '--json'], { env });
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
    const r = await runCli(['send-bulk', csv, '--text', 'Hi'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /msgr is not set up to send here: no base URL, API key, account or sender/);
    assert.doesNotMatch(r.stderr, /preflight|not a phone number/);
    // A dry run needs no base URL or key: what it lacks is the account and the sender.
    const dry = await runCli(['send-bulk', csv, '--text', 'Hi', '--dry-run'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
    assert.equal(dry.code, 2);
    assert.match(dry.stderr, /not set up to send here: no account or sender\n/);
  });
});

describe('msgr runs list', () => {
  test('fits 80 columns (file names, short run ids); --wide keeps the paths; --json is unchanged', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const deep = join(tempDir('msgr-runs-list-'), 'a-folder-with-a-long-name', 'another-long-folder-name', 'and-one-more');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(deep, { recursive: true });
    const files = [join(deep, 'spring-campaign-customers-2026-final.csv'), join(deep, 'b.csv')];
    // Two files of other numbers: the same data twice would be a run again (--again).
    files.forEach((f, i) => writeFileSync(f, `msisdn\n+44791112345${i}\n+44791112346${i}\n`));
    for (const f of files) {
      const r = await runCli(['send-bulk', f, '--from', 'Acme', '--text', 'Hi', '--account', 'ACME-PRODUCTION-EUROPE-WEST', '--base-url', server.url], { env: { ...env, MSGR_API_KEY: KEY } });
      assert.equal(r.code, 0, r.stderr);
    }
    const list = await runCli(['runs', 'list'], { env });
    assert.equal(list.code, 0, list.stderr);
    const lines = list.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    for (const line of lines) assert.ok([...line].length <= 80, `${[...line].length} columns: ${line}`);
    assert.match(lines[0] ?? '', /^RUN +STARTED +FILE +TARGET +ACCEPTED +STATE$/);
    assert.ok(!list.stdout.includes(deep), 'a path in the narrow table');
    assert.match(list.stdout, /b\.csv/);
    assert.match(list.stdout, /2 of 2 +finished/);
    // The short id is a run reference every runs command takes.
    const short = /^(\w{8}) /.exec(lines[1] ?? '')?.[1] ?? '';
    const show = await runCli(['runs', 'show', short], { env });
    assert.equal(show.code, 0, show.stderr);
    const wide = await runCli(['runs', 'list', '--wide'], { env });
    for (const f of files) assert.ok(wide.stdout.includes(f), `--wide lacks ${f}`);
    assert.match(wide.stdout, /^RUN +STARTED +FILE +TARGET +ROWS +ACCEPTED +IN DOUBT +NOT SENT +STATE$/m);
    const json = JSON.parse((await runCli(['runs', 'list', '--json'], { env })).stdout) as { runs: Array<{ file: string; runId: string }> };
    assert.deepEqual(json.runs.map((r) => r.file).sort(), [...files].sort());
  });

  test('keyed runs show their campaign key (within 80 columns); runs without one show none', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const file = join(tempDir('msgr-runs-keys-'), 'today.csv');
    const plain = await runCli(['runs', 'list'], { env });
    for (const [i, day] of ['2026-12-01', '2026-12-02'].entries()) {
      // Each day's export (the same data under another key would stop: the file not replaced).
      writeFileSync(file, `msisdn\n+44791112345${i}\n+44791112346${i}\n`);
      const r = await runCli(['send-bulk', file, '--sandbox', '--from', 'Clinic', '--text', 'Hi', '--account', 'CLINIC01', '--once', `reminders-${day}`, '--again', '--yes', '-q'], { env });
      assert.equal(r.code, 0, r.stderr);
    }
    assert.doesNotMatch(plain.stdout, /KEY/);
    const list = await runCli(['runs', 'list'], { env });
    const lines = list.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^RUN +STARTED +FILE +KEY +TARGET +ACCEPTED +STATE$/);
    // Whole where 80 columns hold it; else cut in the middle, as a file name is: its start and its end (the day) kept.
    for (const day of ['12-01', '12-02']) assert.match(list.stdout, new RegExp(`today\\.csv +(reminders-2026-${day}|remind\\S*…\\S*${day}) +sandbox +2 of 2 +finished`));
    for (const line of lines) assert.ok([...line].length <= 80, `${[...line].length} columns: ${line}`);
    assert.match((await runCli(['runs', 'list', '--wide'], { env })).stdout, /today\.csv +reminders-2026-12-02 +sandbox/);
    if (hasScript) assert.match((await runTty(['runs', 'list'], env, [], { columns: 100 })).output, /today\.csv +reminders-2026-12-02 +sandbox/);
    const json = JSON.parse((await runCli(['runs', 'list', '--json'], { env })).stdout) as { runs: Array<{ once: string | null }> };
    assert.deepEqual(json.runs.map((r) => r.once).sort(), ['reminders-2026-12-01', 'reminders-2026-12-02']);
    assert.match((await runCli(['runs', 'list', '--wide'], { env })).stdout, /^RUN +STARTED +FILE +KEY +TARGET/m);
  });

  test('on a wider terminal the names get the room', { skip: hasScript ? false : 'util-linux script is not installed' }, async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const dir = tempDir();
    const file = join(dir, 'a-very-long-file-name-for-the-autumn-campaign-export-v3.csv');
    writeFileSync(file, 'msisdn\n+447911123456\n');
    assert.equal((await runCli(['send-bulk', file, '--from', 'Acme', '--text', 'Hi', '--sandbox'], { env })).code, 0);
    const narrow = await runTty(['runs', 'list'], env, [], { columns: 80 });
    assert.match(narrow.output, /a-very-lo\S*…\S*-v3\.csv/);
    const wide = await runTty(['runs', 'list'], env, [], { columns: 160 });
    assert.match(wide.output, /a-very-long-file-name-for-the-autumn-campaign-export-v3\.csv/);
  });
});
