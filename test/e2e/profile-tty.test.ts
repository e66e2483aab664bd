// Prompts on a real terminal: msgr runs under util-linux `script`, which gives it a pseudo-TTY.
// Answers are typed only once the question is on the screen, as a person would.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { hasScript, runTty } from '../support/tty.js';
import { useTestServer } from '../support/test-server.js';

const KEY = 'sk_tty_TYPEDsecret_4321';

const server = useTestServer();

describe('on a terminal', { skip: hasScript ? false : 'util-linux script is not installed' }, () => {
  test('profile add asks for the key without echoing it', async () => {
    const dir = tempDir('msgr-e2e-tty-');
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const r = await runTty(['profile', 'add', 'prod', '--account', 'ACME', '--base-url', 'https://api.example.com'], env, [[/API key for profile "prod" \(input hidden\): /, `${KEY}\r`]]);
    assert.equal(r.code, 0, r.output);
    assert.ok(!r.output.includes(KEY), `the key was echoed:\n${r.output}`);
    assert.match(r.output, /\*\*\*\*4321/);
    const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: { prod: { apiKey: string } } };
    assert.equal(saved.profiles.prod.apiKey, KEY);
  });

  test('re-adding asks before replacing; no keeps the old profile', async () => {
    const dir = tempDir('msgr-e2e-tty-');
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    assert.equal((await runCli(['profile', 'add', 'prod', '--api-key-stdin', '--account', 'OLD'], { env, input: `${KEY}\n` })).code, 0);
    // The question fits the terminal: it may go on to a second line.
    const no = await runTty(['profile', 'add', 'prod', '--account', 'NEW'], env, [[/already exists [\s\S]*Replace\s+it\? \[y\/N\] /, 'n\r']]);
    assert.equal(no.code, 2, no.output);
    assert.match(readFileSync(join(dir, 'config.json'), 'utf8'), /"OLD"/);
    const yes = await runTty(['profile', 'add', 'prod', '--account', 'NEW'], env, [
      [/Replace\s+it\? \[y\/N\] /, 'y\r'],
      [/input\s+hidden\): /, 'sk_replacement_0001\r'],
    ]);
    assert.equal(yes.code, 0, yes.output);
    assert.match(readFileSync(join(dir, 'config.json'), 'utf8'), /"NEW"/);
  });

  test('a guarded profile shows where the send goes and sends only on y', async () => {
    const dir = tempDir('msgr-e2e-tty-');
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const add = await runCli(['profile', 'add', 'prod', '--api-key-stdin', '--account', 'PROD01', '--base-url', server.url, '--confirm'], { env, input: `${KEY}\n` });
    assert.equal(add.code, 0, add.stderr);
    const args = ['send', '--to', '+447911123456', '--to', '+447911123457', '--from', 'Acme', '--text', 'hi'];

    server.requests.length = 0;
    const no = await runTty(args, env, [[/Send\? \[y\/N\] /, 'n\r']]);
    assert.equal(no.code, 2, no.output);
    assert.equal(server.requests.length, 0, 'sent although not confirmed');
    assert.match(no.output, /profile\s+prod/);
    assert.match(no.output, /account\s+PROD01/);
    assert.match(no.output, new RegExp(`base URL\\s+${server.url.replace(/\./g, '\\.')}`));
    assert.match(no.output, /2 recipients/);
    assert.ok(!no.output.includes(KEY));

    const yes = await runTty(args, env, [[/Send\? \[y\/N\] /, 'y\r']]);
    assert.equal(yes.code, 0, yes.output);
    assert.equal(server.requests.length, 1);
  });

  test('Ctrl-C at the question of a resume whose earlier run left a batch in doubt: exit 7 naming the run, not 130', async () => {
    const dir = tempDir('msgr-e2e-tty-');
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const add = await runCli(['profile', 'add', 'prod', '--api-key-stdin', '--account', 'PROD01', '--base-url', server.url, '--confirm'], { env, input: `${KEY}\n` });
    assert.equal(add.code, 0, add.stderr);
    const csv = join(tempDir('msgr-e2e-tty-csv-'), 'list.csv');
    writeFileSync(csv, 'msisdn\n+447911123456\n+447911123457\n+447911123458\n');
    const journal = join(dir, 'j.jsonl');
    let n = 0;
    server.answer = () => (++n <= 1 ? { status: 202, body: { ok: true } } : { status: 401, body: { title: 'Unauthorized' } });
    const first = await runCli(['send-bulk', csv, '--from', 'Acme', '--text', 'hi', '--batch-size', '1', '--concurrency', '1', '--journal', journal, '--yes'], { env });
    server.answer = undefined;
    assert.equal(first.code, 3, first.stderr);
    // Batch 2 left with no answer, as a request the network lost would.
    const lines = readFileSync(journal, 'utf8').split('\n');
    const runId = (JSON.parse(lines[0] ?? '') as { runId: string }).runId;
    const send = JSON.parse(lines.find((l) => l.includes('"type":"send"')) ?? '') as { batch: number; first: number; key: string; lines: number[]; numbers: string[] };
    const late = { ...send, batch: 2, first: 2, key: send.key.replace(/-0$/, '-2'), lines: [4], numbers: ['+447911123458'] };
    writeFileSync(journal, `${lines.join('\n').trimEnd()}\n${JSON.stringify(late)}\n{"type":"out","batch":2}\n`);
    const before = server.requests.length;

    const r = await runTty(['send-bulk', csv, '--resume', '--journal', journal], env, [[/Send\? \[y\/N\] /, '\u0003']]);
    assert.equal(r.code, 7, r.output);
    // The question counts what this resume would send: not the accepted row, nor the one in doubt.
    assert.match(r.output, /sending\s+1 recipient\s*$/m);
    // The terminal's lines are wrapped: read as one.
    const said = r.output.replace(/\r?\n +/g, ' ');
    assert.match(said, /interrupted before anything was sent; 1 batch an earlier run left in doubt is still in doubt/);
    assert.match(said, new RegExp(`msgr runs show ${runId}\` lists them`));
    assert.equal(server.requests.length, before, 'nothing was sent');
  });

  test('send-bulk of a finished file again is refused on a terminal too: no question stands in for --skip-sent or --again', async () => {
    const dir = tempDir('msgr-e2e-tty-');
    const csv = join(tempDir('msgr-e2e-tty-csv-'), 'list.csv');
    writeFileSync(csv, 'msisdn\n+447911123456\n+447911123457\n');
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir, MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
    const command = ['send-bulk', csv, '--from', 'Acme', '--text', 'hi'];
    const first = await runTty(command, env, []);
    assert.equal(first.code, 0, first.output);
    const before = server.requests.length;
    // Up-arrow, Enter; a "y" typed at any question would be taken as the answer.
    const again = await runTty(command, env, [[/\?/, 'y\r']]);
    assert.equal(again.code, 2, again.output);
    const said = again.output.replace(/\r?\n +/g, ' ');
    assert.match(said, /this run would message 2 rows whose numbers run \S+ \(finished [^)]+\) already sent to/);
    assert.match(said, /add --skip-sent .*, or --again /);
    assert.doesNotMatch(again.output, /\[y\/N\]/);
    assert.equal(server.requests.length, before, 'nothing was sent');
  });
});
