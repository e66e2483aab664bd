// The optout commands from the command line (docs/optouts.md), in-process: add, remove, import
// and export, per account and for every account.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { listedOptOuts } from '../../../support/optouts.js';

describe('opt-outs kept by hand', () => {
  test('add, remove, import and export from the command line; --all-accounts applies to every account', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const add = await runInProcess(['optout', 'add', '--account', 'ACME', '07400 900301', '+447400900302', '--default-country', 'GB', '--note', 'asked by phone'], { env });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stderr, /\+447400900301: opted out since \S+, manual \(asked by phone\) \(account ACME\)/);
    const again = await runInProcess(['optout', 'add', '--account', 'ACME', '+447400900301', '--json'], { env });
    assert.equal((JSON.parse(again.stdout) as { already: unknown[] }).already.length, 1);
    const bad = await runInProcess(['optout', 'add', '--account', 'ACME', 'not-a-number', '+447400900303'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not a phone number: not-a-number: .*; nothing was changed/);
    assert.equal((await runInProcess(['optout', 'add', '--all-accounts', '+447400900304'], { env })).code, 0);
    const check = await runInProcess(['optout', 'check', '--account', 'OTHER', '+447400900304', '--json'], { env });
    assert.equal((JSON.parse(check.stdout) as { numbers: Array<{ optedOut: boolean }> }).numbers[0]?.optedOut, true);
    const rm = await runInProcess(['optout', 'remove', '--account', 'ACME', '+447400900302', '+447400900304'], { env });
    assert.equal(rm.code, 0);
    assert.match(rm.stderr, /\+447400900302: taken off the opt-outs of account ACME/);
    assert.match(rm.stderr, /warning: \+447400900304 is still opted out for every account .*--all-accounts/);

    const file = join(dir, 'unsubscribed.csv');
    writeFileSync(file, 'Name;Phone Number\nAnn;+447400900310\nBob;07400 900311\n');
    const imp = await runInProcess(['optout', 'import', file, '--account', 'ACME', '--default-country', 'GB'], { env });
    assert.equal(imp.code, 0, imp.stderr);
    assert.match(imp.stderr, /imported 2 numbers into the opt-outs of account ACME/);
    writeFileSync(file, 'phone\n+447400900312\nhello\n');
    const refused = await runInProcess(['optout', 'import', file, '--account', 'ACME'], { env });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /1 entry is not a phone number; nothing was imported:\n {2}line 3: /);
    const out = join(dir, 'export.csv');
    assert.equal((await runInProcess(['optout', 'export', '--account', 'ACME', '--format', 'csv', '--out', out], { env })).code, 0);
    assert.match(readFileSync(out, 'utf8'), /^number,since,reason,source,evidence\n"\+447400900301",[^\n]+,opt-out,manual,asked by phone\n/);
    const jsonl = await runInProcess(['optout', 'export', '--account', 'ACME', '--format', 'jsonl'], { env });
    const copy = join(dir, 'copy.jsonl');
    writeFileSync(copy, jsonl.stdout);
    assert.equal((await runInProcess(['optout', 'import', copy, '--account', 'COPY'], { env })).code, 0);
    const copied = await listedOptOuts(env, 'COPY');
    assert.deepEqual(copied.filter((n) => !n.store.endsWith('_all.jsonl')).map((n) => [n.number, n.source]), [['+447400900301', 'manual'], ['+447400900304', 'manual'], ['+447400900310', 'import'], ['+447400900311', 'import']]);
  });
});
