// The opt-out store as users meet it: STOP replies from the sandbox through msgr listen, the
// optout commands, two processes writing at once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../support/cli.js';
import { LISTENING, SANDBOX_URL, startMsgr, waitFor } from '../support/daemon.js';

const TOKEN = 'e2e-optout-token-0123456789';

interface Listed {
  numbers: Array<{ number: string; reason: string; source: string; since: string; evidence: Record<string, string> | null; store: string }>;
}

describe('opt-outs', () => {
  test("STOP replies reach the account's store before their answer; other replies do not; START takes the sender off", async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir, MSGR_LISTEN_TOKEN: TOKEN });
    const listen = await startMsgr(['listen', '--port', '0', '--account', 'ACME', '--optouts', '--undeliverable'], env, LISTENING);
    const record = join(dir, 'acked.jsonl');
    const sbx = await startMsgr(['sandbox', '--port', '0', '--webhook-url', listen.ready, '--event-delay', '20', '--reply-rate', '1', '--reply-text', 'Stop.', '--webhook-record', record], env, SANDBOX_URL);
    const numbers = ['+447400900201', '+447400900202', '+447400900203'];
    try {
      const r = await fetch(`${sbx.ready}/v2/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ accountReference: 'ACME', channel: 'SMS', from: 'Acme', body: { text: 'Hi' }, recipients: numbers.map((msisdn) => ({ msisdn })) }),
      });
      assert.equal(r.status, 202);
      // Each reply is acknowledged only once its opt-out is on disk: the store has it by then.
      await waitFor('6 events acknowledged', () => readFileSync(record, 'utf8').split('\n').filter(Boolean).length === 6);
      const list = await runCli(['optout', 'list', '--account', 'ACME', '--json'], { env });
      assert.equal(list.code, 0, list.stderr);
      const listed = (JSON.parse(list.stdout) as Listed).numbers;
      assert.deepEqual(listed.map((n) => n.number).sort(), numbers);
      for (const n of listed) {
        assert.equal(n.source, 'reply');
        assert.equal(n.reason, 'opt-out');
        assert.equal(n.evidence?.text, 'Stop.');
        assert.match(n.evidence?.event ?? '', /^ev_/);
        assert.match(n.evidence?.messageId ?? '', /^sbx_m_/);
      }
      assert.equal(statSync(join(dir, 'optouts', 'ACME.jsonl')).mode & 0o777, 0o600);
      // A reply with no stop word in it changes nothing; one with a stop word among other words
      // opts out (47 CFR 64.1200(a)(10)); START takes the sender off.
      assert.equal((await runCli(['trigger', 'inbound', '--url', listen.ready, '--number', '+447400900204', '--text', 'please stop it'], { env })).code, 0);
      assert.equal((await runCli(['trigger', 'inbound', '--url', listen.ready, '--number', '+447400900207', '--text', 'see you then'], { env })).code, 0);
      assert.equal((await runCli(['trigger', 'inbound', '--url', listen.ready, '--number', '+447400900201', '--text', 'START'], { env })).code, 0);
      // A permanent failure: undeliverable; a temporary one: nothing.
      assert.equal((await runCli(['trigger', 'failed', '--url', listen.ready, '--number', '+447400900205'], { env })).code, 0);
      assert.equal((await runCli(['trigger', 'failed', '--temporary', '--url', listen.ready, '--number', '+447400900206'], { env })).code, 0);
      const check = await runCli(['optout', 'check', '--account', 'ACME', '+447400900201', '+447400900202', '+447400900204', '+447400900205', '+447400900206', '+447400900207'], { env });
      assert.equal(check.code, 0, check.stderr);
      assert.deepEqual(check.stdout.trim().split('\n').map((l) => l.replace(/ since \S+,/, ',')), [
        '+447400900201  not opted out',
        '+447400900202  opted out, reply "Stop."',
        '+447400900204  opted out, reply "please stop it" (stop word "stop")',
        '+447400900205  undeliverable, receipt (unknown-subscriber)',
        '+447400900206  not opted out',
        '+447400900207  not opted out',
      ]);
      await waitFor('the lines', () => /re-subscribed/.test(listen.stdout()) && /added as undeliverable/.test(listen.stdout()));
      assert.match(listen.stdout(), /inbound\s+\+447400900202\s+sbx_m_\w+\s+"Stop\."\s+→ opted out/);
      assert.match(listen.stdout(), /inbound\s+\+447400900204\s+"please stop it"\s+→ opted out/);
      assert.match(listen.stdout(), /inbound\s+\+447400900207\s+"see you then"\n/);
    } finally {
      await sbx.stop();
      await listen.stop();
    }
    // Another account does not see ACME's opt-outs; the export is a list --exclude reads.
    const other = await runCli(['optout', 'check', '--account', 'OTHER', '+447400900202'], { env });
    assert.equal(other.stdout, '+447400900202  not opted out\n');
    const exported = await runCli(['optout', 'export', '--account', 'ACME'], { env });
    // Oldest opt-out first: the two replies came in either order, the receipt after them.
    assert.deepEqual(exported.stdout.split('\n').slice(0, 2).sort(), ['+447400900202', '+447400900203']);
    assert.equal(exported.stdout.split('\n').slice(2).join('\n'), '+447400900204\n+447400900205\n');
  });

  test('--optouts FILE writes a plain list, one number a line, that send-bulk --exclude leaves out', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir, MSGR_LISTEN_TOKEN: TOKEN });
    const list = join(dir, 'stop.txt');
    // --stop-words adds to the FCC's words, which always apply.
    const listen = await startMsgr(['listen', '--port', '0', '--optouts', list, '--stop-words', 'ARRET'], env, LISTENING);
    try {
      for (const [n, text] of [['+447400900211', 'arret'], ['+447400900212', 'STOP'], ['+447400900212', 'stop'], ['+447400900214', 'thanks']]) {
        assert.equal((await runCli(['trigger', 'inbound', '--url', listen.ready, '--number', n ?? '', '--text', text ?? ''], { env })).code, 0);
      }
    } finally {
      await listen.stop();
    }
    assert.equal(readFileSync(list, 'utf8'), '+447400900211\n+447400900212\n');
    const csv = join(dir, 'people.csv');
    writeFileSync(csv, 'phone\n+447400900211\n+447400900212\n+447400900213\n');
    const dry = await runCli(['send-bulk', csv, '--sandbox', '--from', 'Acme', '--text', 'Hi', '--exclude', list, '--dry-run', '--json'], { env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /"excluded": 2/);
  });

  test('add, remove, import and export from the command line; --all-accounts applies to every account', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const add = await runCli(['optout', 'add', '--account', 'ACME', '07400 900301', '+447400900302', '--default-country', 'GB', '--note', 'asked by phone'], { env });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stderr, /\+447400900301: opted out since \S+, manual \(asked by phone\) \(account ACME\)/);
    const again = await runCli(['optout', 'add', '--account', 'ACME', '+447400900301', '--json'], { env });
    assert.equal((JSON.parse(again.stdout) as { already: unknown[] }).already.length, 1);
    const bad = await runCli(['optout', 'add', '--account', 'ACME', 'not-a-number', '+447400900303'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not a phone number: not-a-number: .*; nothing was changed/);
    assert.equal((await runCli(['optout', 'add', '--all-accounts', '+447400900304'], { env })).code, 0);
    const check = await runCli(['optout', 'check', '--account', 'OTHER', '+447400900304', '--json'], { env });
    assert.equal((JSON.parse(check.stdout) as { numbers: Array<{ optedOut: boolean }> }).numbers[0]?.optedOut, true);
    const rm = await runCli(['optout', 'remove', '--account', 'ACME', '+447400900302', '+447400900304'], { env });
    assert.equal(rm.code, 0);
    assert.match(rm.stderr, /\+447400900302: taken off the opt-outs of account ACME/);
    assert.match(rm.stderr, /warning: \+447400900304 is still opted out for every account .*--all-accounts/);

    const file = join(dir, 'unsubscribed.csv');
    writeFileSync(file, 'Name;Phone Number\nAnn;+447400900310\nBob;07400 900311\n');
    const imp = await runCli(['optout', 'import', file, '--account', 'ACME', '--default-country', 'GB'], { env });
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stderr, /imported 2 numbers into the opt-outs of account ACME/);
    writeFileSync(file, 'phone\n+447400900312\nhello\n');
    const refused = await runCli(['optout', 'import', file, '--account', 'ACME'], { env });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /1 entry is not a phone number; nothing was imported:\n {2}line 3: /);
    const out = join(dir, 'export.csv');
    assert.equal((await runCli(['optout', 'export', '--account', 'ACME', '--format', 'csv', '--out', out], { env })).code, 0);
    assert.match(readFileSync(out, 'utf8'), /^number,since,reason,source,evidence\n"\+447400900301",[^\n]+,opt-out,manual,asked by phone\n/);
    const jsonl = await runCli(['optout', 'export', '--account', 'ACME', '--format', 'jsonl'], { env });
    const copy = join(dir, 'copy.jsonl');
    writeFileSync(copy, jsonl.stdout);
    assert.equal((await runCli(['optout', 'import', copy, '--account', 'COPY'], { env })).code, 0);
    const copied = JSON.parse((await runCli(['optout', 'list', '--account', 'COPY', '--json'], { env })).stdout) as Listed;
    assert.deepEqual(copied.numbers.filter((n) => !n.store.endsWith('_all.jsonl')).map((n) => [n.number, n.source]), [['+447400900301', 'manual'], ['+447400900304', 'manual'], ['+447400900310', 'import'], ['+447400900311', 'import']]);
  });

  test('two processes adding at once lose none', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const files = ['a', 'b'].map((name, f) => {
      const path = join(dir, `${name}.txt`);
      writeFileSync(path, Array.from({ length: 300 }, (_, i) => `+4477009${f}${String(i).padStart(4, '0')}\n`).join(''));
      return path;
    });
    const run = (args: string[]): Promise<number | null> => new Promise((r) => spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: 'ignore' }).on('close', r));
    // Two imports and a stream of single adds, all at once.
    const singles = async (): Promise<Array<number | null>> => {
      const codes: Array<number | null> = [];
      for (let i = 0; i < 5; i++) codes.push(await run(['optout', 'add', '--account', 'ACME', `+44770090900${i}`]));
      return codes;
    };
    const [a, b, s] = await Promise.all([run(['optout', 'import', files[0] ?? '', '--account', 'ACME']), run(['optout', 'import', files[1] ?? '', '--account', 'ACME']), singles()]);
    assert.deepEqual([a, b, ...s], [0, 0, 0, 0, 0, 0, 0]);
    const exported = (await runCli(['optout', 'export', '--account', 'ACME'], { env })).stdout.trim().split('\n');
    assert.equal(exported.length, 605);
    assert.equal(new Set(exported).size, 605);
  });
});
