import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { classifyReply, keywordOf, keywords } from '../../../src/optouts/keywords.js';
import { PlainList } from '../../../src/optouts/plain-list.js';
import { eventNumber, optOutAction, type ReplyPolicy } from '../../../src/optouts/replies.js';
import { openOptOuts, optOutStorePath, OptOutStore, type StoreWriter } from '../../../src/optouts/store.js';
import { summarise } from '../../../src/events/fields.js';
import { testProcess } from '../../support/fake-context.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'msgr-optouts-'));
function writer(at = '2030-01-01T09:00:00.000Z'): StoreWriter {
  return { pid: testProcess.pid, isProcessAlive: testProcess.isProcessAlive, now: () => new Date(at), command: 'test' };
}

describe('the opt-out store', () => {
  test('add, already, remove, absent; every change kept with its time, source and evidence; 0600', async () => {
    const state = tmp();
    const path = optOutStorePath(state, 'ACME');
    assert.equal(path, join(state, 'optouts', 'ACME.jsonl'));
    const store = OptOutStore.open(path);
    assert.equal(store.size, 0);
    const r1 = await store.add([{ number: '+447400900123', source: 'reply', evidence: { text: 'STOP', event: 'ev_1' } }, { number: '+447400900124', source: 'manual' }], writer());
    assert.deepEqual(r1.added.map((e) => e.number), ['+447400900123', '+447400900124']);
    const r2 = await store.add([{ number: '+447400900123', source: 'manual' }], writer('2030-01-02T00:00:00.000Z'));
    assert.equal(r2.added.length, 0);
    assert.equal(r2.already[0]?.since, '2030-01-01T09:00:00.000Z');
    assert.deepEqual(store.get('+447400900123'), { number: '+447400900123', since: '2030-01-01T09:00:00.000Z', reason: 'opt-out', source: 'reply', evidence: { text: 'STOP', event: 'ev_1' } });
    const r3 = await store.remove([{ number: '+447400900124', source: 'manual' }, { number: '+447400900199', source: 'manual' }], writer('2030-01-03T00:00:00.000Z'));
    assert.deepEqual(r3.removed.map((e) => e.number), ['+447400900124']);
    assert.deepEqual(r3.absent, ['+447400900199']);
    assert.deepEqual(store.numbers(), ['+447400900123']);
    // The history answers for any time: what a report of messages sent then needs.
    assert.equal(store.optedOutAt('+447400900124', new Date('2030-01-02T00:00:00Z'))?.source, 'manual');
    assert.equal(store.optedOutAt('+447400900124', new Date('2030-01-04T00:00:00Z')), undefined);
    assert.equal(store.optedOutAt('+447400900123', new Date('2029-12-31T00:00:00Z')), undefined);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(readFileSync(path, 'utf8').split('\n').filter(Boolean).length, 3);
    // Another reader sees the same.
    assert.deepEqual(OptOutStore.open(path).numbers(), ['+447400900123']);
    await assert.rejects(store.add([{ number: '07400900123', source: 'x' }], writer()), UsageError);
  });

  test('a reason changes with a new line; undeliverable numbers are left out too', async () => {
    const store = OptOutStore.open(join(tmp(), 'o.jsonl'));
    await store.add([{ number: '+447400900125', reason: 'undeliverable', source: 'receipt' }], writer());
    assert.equal(store.get('+447400900125')?.reason, 'undeliverable');
    const r = await store.add([{ number: '+447400900125', source: 'reply' }], writer('2030-02-01T00:00:00.000Z'));
    assert.equal(r.added.length, 1);
    assert.equal(store.get('+447400900125')?.reason, 'opt-out');
    assert.equal(store.get('+447400900125')?.since, '2030-01-01T09:00:00.000Z');
  });

  test("a torn last line and lines that are not changes are passed over, and the next writer starts a line of its own", async () => {
    const path = join(tmp(), 'o.jsonl');
    writeFileSync(path, '{"v":1,"op":"add","number":"+447400900126","at":"2030-01-01T00:00:00Z","source":"x"}\nnot json\n{"v":1,"op":"add","number":"123","at":"x","source":"x"}\n{"v":1,"op":"add","num');
    const store = OptOutStore.open(path);
    assert.deepEqual(store.numbers(), ['+447400900126']);
    assert.equal(store.skipped, 2);
    await store.add([{ number: '+447400900127', source: 'x' }], writer());
    const lines = readFileSync(path, 'utf8').split('\n');
    assert.match(lines[3] ?? '', /"number":"\+447400900127"/);
    assert.deepEqual(OptOutStore.open(path).numbers().sort(), ['+447400900126', '+447400900127']);
  });

  test("a sender's front door: the account's store and the one for every account", async () => {
    const state = tmp();
    await OptOutStore.open(optOutStorePath(state, 'ACME')).add([{ number: '+447400900130', source: 'x' }], writer());
    await OptOutStore.open(optOutStorePath(state, undefined)).add([{ number: '+447400900131', source: 'x' }], writer());
    await OptOutStore.open(optOutStorePath(state, 'OTHER')).add([{ number: '+447400900132', source: 'x' }], writer());
    const acme = openOptOuts(state, 'ACME');
    assert.ok(acme.has('+447400900130') && acme.has('+447400900131') && !acme.has('+447400900132'));
    assert.deepEqual(acme.numbers().sort(), ['+447400900130', '+447400900131']);
    assert.equal(acme.size, 2);
    const none = openOptOuts(state, undefined);
    assert.deepEqual(none.numbers(), ['+447400900131']);
    assert.equal(none.files.length, 1);
  });

  test('two processes adding at once lose none', async () => {
    const path = join(tmp(), 'o.jsonl');
    const store = resolve(import.meta.dirname, '../../../src/optouts/store.js');
    const script = (prefix: string): string => `
      const { OptOutStore } = await import(${JSON.stringify(store)});
      const s = OptOutStore.open(${JSON.stringify(path)});
      const w = { pid: process.pid, now: () => new Date(), isProcessAlive: () => true, command: 'w' };
      for (let i = 0; i < 150; i++) await s.add([{ number: '+4477009${prefix}' + String(i).padStart(3, '0'), source: 'p' }], w);`;
    const run = (prefix: string): Promise<number | null> => new Promise((r) => spawn(process.execPath, ['--input-type=module', '-e', script(prefix)], { stdio: 'inherit' }).on('close', r));
    assert.deepEqual(await Promise.all([run('01'), run('02')]), [0, 0]);
    const numbers = OptOutStore.open(path).numbers();
    assert.equal(numbers.length, 300);
    assert.equal(readFileSync(path, 'utf8').split('\n').filter(Boolean).length, 300);
  });

  test('the plain list: one number a line, added once, removed by rewriting', async () => {
    const path = join(tmp(), 'list.txt');
    writeFileSync(path, '# opted out\n+447400900140');
    const list = new PlainList(path);
    assert.equal(await list.add('+447400900141', writer()), true);
    assert.equal(await list.add('+447400900141', writer()), false);
    assert.equal(readFileSync(path, 'utf8'), '# opted out\n+447400900140\n+447400900141\n');
    assert.equal(await list.remove('+447400900140', writer()), true);
    assert.equal(readFileSync(path, 'utf8'), '# opted out\n+447400900141\n');
    appendFileSync(path, '+447400900142');
    await list.add('+447400900143', writer());
    assert.match(readFileSync(path, 'utf8'), /\+447400900142\n\+447400900143\n$/);
  });
});

describe('replies and receipts', () => {
  const policy: ReplyPolicy = { words: keywords(), allowStart: false, undeliverable: false, permanentCodes: new Set() };
  test('the whole text must be a stop word, in any case, with trailing punctuation and inner spaces forgiven', () => {
    const w = keywords();
    for (const t of ['STOP', 'stop', ' Stop. ', 'Stop!', '"STOP"', 'opt-out', 'Stop All', 'ＳＴＯＰ', 'unsubscribe']) assert.equal(classifyReply(t, w), 'stop', t);
    for (const t of ['please stop', 'Stop by tomorrow?', 'STOPPED', '', 'Hello']) assert.equal(classifyReply(t, w), undefined, t);
    assert.equal(classifyReply('start', w), 'start');
    assert.equal(classifyReply('ARRET', keywords(['arrêt', 'arret'])), 'stop');
    assert.equal(keywordOf(' Stop all! '), 'STOPALL');
  });

  test('numbers as providers write them: with +, without it, national with a country', () => {
    assert.equal(eventNumber('+447400900123'), '+447400900123');
    assert.equal(eventNumber('447400900123'), '+447400900123');
    assert.equal(eventNumber('07400 900123', 'GB'), '+447400900123');
    assert.equal(eventNumber('Acme'), undefined);
  });

  test('STOP opts out, START only when allowed, a permanent failure only when asked', () => {
    const stop = optOutAction(summarise({ type: 'message.inbound', from: '447400900123', text: 'Stop' }), 'ev_1', policy);
    assert.deepEqual(stop, { op: 'add', why: 'stop', change: { number: '+447400900123', reason: 'opt-out', source: 'reply', evidence: { text: 'Stop', event: 'ev_1' } } });
    const start = summarise({ type: 'message.inbound', from: '+447400900123', text: 'START' });
    assert.deepEqual(optOutAction(start, 'ev_2', policy), { op: 'ignore', why: 'start-not-allowed', raw: '+447400900123', word: 'start' });
    assert.equal(optOutAction(start, 'ev_2', { ...policy, allowStart: true })?.op, 'remove');
    const failed = summarise({ type: 'message.status', messageId: 'm', msisdn: '+447400900124', status: 'failed', error: { code: 'unknown-subscriber', permanent: true } });
    assert.equal(optOutAction(failed, 'ev_3', policy), undefined);
    const added = optOutAction(failed, 'ev_3', { ...policy, undeliverable: true });
    assert.ok(added?.op === 'add' && added.change.reason === 'undeliverable' && added.change.evidence?.code === 'unknown-subscriber');
    const temporary = summarise({ status: 'undelivered', to: '+447400900125', ErrorCode: '30003' });
    assert.equal(optOutAction(temporary, 'ev_4', { ...policy, undeliverable: true }), undefined);
    assert.equal(optOutAction(temporary, 'ev_4', { ...policy, undeliverable: true, permanentCodes: new Set(['30003']) })?.op, 'add');
    assert.equal(optOutAction(summarise({ type: 'message.inbound', from: 'Acme', text: 'STOP' }), 'ev_5', policy)?.op, 'ignore');
  });
});
