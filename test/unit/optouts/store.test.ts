import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { keywords } from '../../../src/optouts/keywords.js';
import { PlainList } from '../../../src/optouts/plain-list.js';
import { eventNumber, optOutAction, type ReplyPolicy } from '../../../src/optouts/replies.js';
import { DamagedStoreError, openOptOuts, optOutStorePath, OptOutStore, tornPath, type StoreWriter } from '../../../src/optouts/store.js';
import { repairStore } from '../../../src/optouts/repair.js';
import { summarise } from '../../../src/events/fields.js';
import { testProcess } from '../../support/fake-context.js';
import { tempDir } from '../../support/cli.js';

const tmp = (): string => tempDir('msgr-optouts-');
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

  test('a last record without its newline counts, and the next writer keeps it whole', async () => {
    const path = join(tmp(), 'o.jsonl');
    // A hand edit that left the last line without its newline: the record counts.
    writeFileSync(path, '{"v":1,"op":"add","number":"+447400900126","at":"2030-01-01T00:00:00Z","source":"x"}\n{"v":1,"op":"add","number":"+447400900128","at":"2030-01-01T00:00:00Z","source":"manual"}');
    const store = OptOutStore.open(path);
    assert.deepEqual(store.numbers().sort(), ['+447400900126', '+447400900128']);
    assert.equal(openOptOuts(join(path, '..', '..'), undefined).size, 0, 'another store');
    await store.add([{ number: '+447400900127', source: 'x' }], writer());
    const lines = readFileSync(path, 'utf8').split('\n');
    assert.match(lines[1] ?? '', /"number":"\+447400900128"/);
    assert.match(lines[2] ?? '', /"number":"\+447400900127"/);
    assert.deepEqual(OptOutStore.open(path).numbers().sort(), ['+447400900126', '+447400900127', '+447400900128']);
  });

  test('a write cut short is passed over, and the next writer sets it aside in <store>.torn', async () => {
    const path = join(tmp(), 'o.jsonl');
    writeFileSync(path, '{"v":1,"op":"add","number":"+447400900126","at":"2030-01-01T00:00:00Z","source":"x"}\n{"v":1,"op":"add","num');
    const store = OptOutStore.open(path);
    assert.deepEqual(store.numbers(), ['+447400900126']);
    assert.equal(store.damage.count, 0);
    await store.add([{ number: '+447400900127', source: 'x' }], writer());
    assert.match(readFileSync(path, 'utf8').split('\n')[1] ?? '', /"number":"\+447400900127"/);
    assert.equal(readFileSync(tornPath(path), 'utf8'), '{"v":1,"op":"add","num\n');
  });

  test('a last line cut short that names an opt-out counts: senders stop until a writer makes it whole or repair opts the number out', async () => {
    const state = tmp();
    const path = optOutStorePath(state, 'T');
    mkdirSync(join(state, 'optouts'), { recursive: true });
    // A hand edit (or a crash) cut the last record off before its end and its newline.
    const cut = '{"v":1,"op":"add","number":"+447400900891","at":"2030-01-01T00:00:00Z","reason":"opt-out"';
    const whole = '{"v":1,"op":"add","number":"+447400900126","at":"2030-01-01T00:00:00Z","source":"x"}\n';
    writeFileSync(path, `${whole}${cut}`);
    const store = OptOutStore.open(path);
    assert.deepEqual(store.cutShort, { line: 2, text: cut });
    assert.throws(() => openOptOuts(state, 'T'), (err: unknown) => err instanceof DamagedStoreError && /1 line that is not a record \(line 2: "\{\\"v\\":1,\\"op\\":\\"add\\",\\"number\\":\\"\+4474009008/.test(err.message) && /msgr optout repair --account T/.test(err.hint ?? ''));
    // A writer makes it whole: the number opted out (as of the time the line gave), the bytes kept in <store>.torn.
    await store.add([{ number: '+447400900127', source: 'x' }], writer());
    assert.equal(readFileSync(tornPath(path), 'utf8'), `${cut}\n`);
    const healed = openOptOuts(state, 'T');
    assert.deepEqual(healed.numbers().sort(), ['+447400900126', '+447400900127', '+447400900891']);
    assert.equal(healed.get('+447400900891')?.since, '2030-01-01T00:00:00.000Z');
    assert.match(healed.get('+447400900891')?.evidence?.note ?? '', /made whole from a line cut short/);
    // Or, before any writer came, the repair the refusal offers does it.
    writeFileSync(path, `${whole}${cut}`);
    const r = await repairStore(path, writer('2030-01-05T00:00:00.000Z'), undefined);
    assert.deepEqual(r.numbers.map((n) => [n.line, n.number, n.from]), [[2, '+447400900891', 'part of a record']]);
    const repaired = openOptOuts(state, 'T');
    assert.deepEqual(repaired.numbers().sort(), ['+447400900126', '+447400900891']);
    assert.match(repaired.get('+447400900891')?.evidence?.note ?? '', /named on line 2, which was not a whole record/);
    // Since the time the record gave, not the repair's.
    assert.equal(repaired.get('+447400900891')?.since, '2030-01-01T00:00:00.000Z');
  });

  test('a last line cut short is repaired in place too: the number is opted out, the bytes kept with what is set aside', async () => {
    const state = tmp();
    const path = optOutStorePath(state, 'T');
    mkdirSync(join(state, 'optouts'), { recursive: true });
    writeFileSync(path, '{"v":1,"op":"add","number":"+447400900126","at":"2030-01-01T00:00:00Z","source":"x"}\n{"v":1,"op":"add","number":"+447400900892","at":"20');
    // A removal cut short names no opt-out: it stays passed over (the number stays as it was).
    const removal = join(tmp(), 'r.jsonl');
    writeFileSync(removal, '{"v":1,"op":"remove","number":"+447400900126","at":"20');
    assert.equal(OptOutStore.open(removal).cutShort, undefined);
    const r = await repairStore(path, writer('2030-01-05T00:00:00.000Z'), undefined);
    assert.deepEqual(r.numbers.map((n) => n.number), ['+447400900892']);
    assert.match(readFileSync(r.setAsideFile ?? '', 'utf8'), /"number":"\+447400900892","at":"20\n$/);
    assert.deepEqual(openOptOuts(state, 'T').numbers().sort(), ['+447400900126', '+447400900892']);
  });

  test('lines that are not records are damage: a sender stops, naming them; a writer still records; repair turns typed numbers into opt-outs', async () => {
    const state = tmp();
    const path = optOutStorePath(state, 'ACME');
    mkdirSync(join(state, 'optouts'), { recursive: true });
    writeFileSync(path, '{"v":1,"op":"add","number":"+447400900126","at":"2030-01-01T00:00:00Z","source":"x"}\n+447400900129\nnot json\n{"v":1,"op":"add","number":"123","at":"x","source":"x"}\n07400 900131 # asked at the desk');
    const store = OptOutStore.open(path);
    assert.equal(store.damage.count, 4);
    assert.deepEqual(store.damage.lines.map((b) => b.line), [2, 3, 4, 5]);
    assert.throws(() => openOptOuts(state, 'ACME'), (err: unknown) => err instanceof DamagedStoreError && /4 lines that are not records \(line 2: "\+447400900129"; line 3: "not json"; line 4: .*, and 1 more\)/.test(err.message) && /msgr optout repair --account ACME/.test(err.hint ?? ''));
    // A writer records whatever else the file holds (an opt-out must not be lost to a hand edit).
    await store.add([{ number: '+447400900130', source: 'reply' }], writer());
    assert.ok(OptOutStore.open(path).has('+447400900130'));
    // Without a country the national number on line 5 cannot be read, and an opt-out is never set
    // aside for that: nothing changes until the repair is told the country.
    const before = readFileSync(path, 'utf8');
    const refused = await repairStore(path, writer('2030-01-04T00:00:00.000Z'), undefined);
    assert.deepEqual(refused.national.map((n) => n.line), [5]);
    assert.equal(refused.backup, undefined);
    assert.equal(readFileSync(path, 'utf8'), before);
    const r = await repairStore(path, writer('2030-01-05T00:00:00.000Z'), 'GB');
    assert.deepEqual(r.numbers.map((n) => [n.line, n.number]), [[2, '+447400900129'], [5, '+447400900131']]);
    assert.deepEqual(r.setAside.map((a) => a.line), [3, 4]);
    assert.equal(readFileSync(r.setAsideFile ?? '', 'utf8'), 'not json\n{"v":1,"op":"add","number":"123","at":"x","source":"x"}\n');
    assert.match(readFileSync(r.backup ?? '', 'utf8'), /^\{"v":1.*\n\+447400900129\n/);
    const repaired = openOptOuts(state, 'ACME');
    assert.deepEqual(repaired.numbers().sort(), ['+447400900126', '+447400900129', '+447400900130', '+447400900131']);
    assert.match(repaired.get('+447400900129')?.evidence?.note ?? '', /typed into the store by hand \(line 2\)/);
    // A reader that read the store before the repair reads the new file whole.
    store.refresh();
    assert.equal(store.damage.count, 0);
    assert.equal(store.size, 4);
    assert.equal((await repairStore(path, writer(), 'GB')).backup, undefined, 'nothing left to repair');
  });

  test('possible opt-outs: kept until a person decides; accept opts out with the reply as evidence, dismiss keeps the number', async () => {
    const state = tmp();
    const store = OptOutStore.open(optOutStorePath(state, 'ACME'));
    const evidence = { text: 'remove me please', matched: 'remove me', why: 'an informal request', event: 'ev_1' };
    await store.possible([{ number: '+447400900140', source: 'reply', evidence }], writer('2030-01-01T09:00:00.000Z'));
    await store.possible([{ number: '+447400900140', source: 'reply', evidence: { text: 'no more texts' } }], writer('2030-01-01T10:00:00.000Z'));
    await store.possible([{ number: '+447400900141', source: 'reply', evidence }], writer());
    const all = openOptOuts(state, 'ACME');
    assert.equal(all.has('+447400900140'), false);
    assert.deepEqual(all.undecided('+447400900140'), { number: '+447400900140', since: '2030-01-01T09:00:00.000Z', source: 'reply', evidence: { text: 'no more texts' }, replies: 2 });
    assert.equal(all.decideCommand('+447400900140', 'accept'), 'msgr optout possible --accept +447400900140 --account ACME');
    const accepted = await store.decide(['+447400900140', '+447400900199'], 'accept', writer('2030-01-02T00:00:00.000Z'), 'read it');
    assert.deepEqual(accepted.none, ['+447400900199']);
    await store.decide(['+447400900141'], 'dismiss', writer('2030-01-02T00:00:00.000Z'));
    const after = openOptOuts(state, 'ACME');
    assert.deepEqual(after.pending(), []);
    assert.equal(after.get('+447400900140')?.evidence?.note, 'read it');
    assert.equal(after.get('+447400900140')?.evidence?.text, 'no more texts');
    assert.equal(after.has('+447400900141'), false);
    // A possible opt-out of a number opted out already changes nothing.
    const again = await store.possible([{ number: '+447400900140', source: 'reply' }], writer());
    assert.equal(again.kept.length, 0);
    assert.equal(OptOutStore.open(store.path).undecided('+447400900140'), undefined);
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
  test('numbers as providers write them: with +, without it, national with a country', () => {
    assert.equal(eventNumber('+447400900123'), '+447400900123');
    assert.equal(eventNumber('447400900123'), '+447400900123');
    assert.equal(eventNumber('07400 900123', 'GB'), '+447400900123');
    assert.equal(eventNumber('Acme'), undefined);
    // A tel: URI (RFC 3966) is a number: its separators and parameters dropped.
    assert.equal(eventNumber('tel:+44-7400-900123'), '+447400900123');
    assert.equal(eventNumber('TEL:+447400900123;phone-context=example.com'), '+447400900123');
    assert.equal(eventNumber('tel:Acme'), undefined);
  });

  test('STOP opts out with its word, a possible one is kept, START unless turned off, a permanent failure only when asked', () => {
    const stop = optOutAction(summarise({ type: 'message.inbound', from: 'tel:+447400900123', text: 'Stop texting me 🙂' }), 'ev_1', policy);
    assert.deepEqual(stop, { op: 'add', why: 'stop', change: { number: '+447400900123', reason: 'opt-out', source: 'reply', evidence: { text: 'Stop texting me 🙂', event: 'ev_1', word: 'stop' } } });
    const possible = optOutAction(summarise({ type: 'message.inbound', from: '+447400900123', text: 'please remove me from your list' }), 'ev_9', policy);
    assert.deepEqual(possible, { op: 'possible', why: 'possible', change: { number: '+447400900123', source: 'reply', evidence: { text: 'please remove me from your list', event: 'ev_9', matched: 'remove me', why: 'an informal request' } } });
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
