// The index beside an opt-out store (src/optouts/index-file.ts, lookup.ts; docs/optouts.md: "The
// index"): used only while it describes the store exactly, made again from the store otherwise,
// and kept current by writers. Every test checks the answers against the store read whole.
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { IndexUnusable, StoreIndex } from '../../../src/optouts/index-file.js';
import { indexPath } from '../../../src/optouts/lookup.js';
import { DamagedStoreError, openOptOuts, optOutStorePath, OptOutStore, type StoreWriter } from '../../../src/optouts/store.js';
import { step } from '../../../src/optouts/state.js';
import { testProcess } from '../../support/fake-context.js';
import { tempDir } from '../../support/cli.js';

const tmp = (): string => tempDir('msgr-optout-index-');
function writer(at = '2030-01-01T09:00:00.000Z'): StoreWriter {
  return { pid: testProcess.pid, isProcessAlive: testProcess.isProcessAlive, now: () => new Date(at), command: 'test' };
}
const proc = { pid: testProcess.pid, isProcessAlive: testProcess.isProcessAlive, now: () => new Date('2030-01-01T00:00:00Z') };
const line = (op: string, number: string, at = '2030-01-01T00:00:00.000Z', source = 'import'): string => `${JSON.stringify({ v: 1, op, number, at, reason: 'opt-out', source })}\n`;
const n = (i: number): string => `+4479111${String(i).padStart(5, '0')}`;

/** A store of `count` numbers written as msgr writes them, and its path. */
function store(count: number): string {
  const path = optOutStorePath(tmp(), 'ACME');
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  let text = '';
  for (let i = 0; i < count; i++) text += line('add', n(i));
  writeFileSync(join(path), text, { flag: 'w', mode: 0o600 });
  return path;
}

/** The answers through the index, and through the whole store read into memory: they must agree. */
function agree(path: string, numbers: readonly string[]): void {
  const indexed = openOptOuts(join(path, '..', '..'), 'ACME', proc);
  const whole = OptOutStore.open(path);
  const expected = new Set(whole.numbers());
  for (const x of numbers) assert.equal(indexed.has(x), expected.has(x), x);
  assert.deepEqual(indexed.numbers().sort(), [...expected].sort());
  assert.equal(indexed.size, expected.size);
}

const indexStamp = (path: string): { size: number; covered: number } => {
  const i = StoreIndex.open(indexPath(path));
  assert.ok(i !== undefined);
  const out = { size: i.stamp.size, covered: i.summary.covered };
  i.close();
  return out;
};

describe('the opt-out store index', () => {
  test('the rule one number follows (state.ts): first add since the last remove, latest add, possible opt-outs', () => {
    let s = step(undefined, 'add', 1);
    s = step(s, 'add', 2);
    assert.deepEqual(s, { out: { since: 1, last: 2 } });
    assert.equal(step(s, 'remove', 3), undefined);
    assert.deepEqual(step(step(undefined, 'possible', 4), 'possible', 5), { possible: { since: 4, last: 5, replies: 2 } });
    assert.deepEqual(step(s, 'possible', 6), s);
    assert.equal(step(step(undefined, 'possible', 4), 'dismiss', 7), undefined);
    assert.deepEqual(step(step(undefined, 'possible', 4), 'add', 8), { out: { since: 8, last: 8 } });
  });

  test('missing: made from the store at the first look-up, then used; the answers are the store read whole', () => {
    const path = store(5000);
    assert.equal(existsSync(indexPath(path)), false);
    agree(path, [n(0), n(4999), n(5000), '+447400900999']);
    assert.ok(existsSync(indexPath(path)));
    assert.equal(statSync(indexPath(path)).mode & 0o777, 0o600);
    assert.deepEqual(indexStamp(path), { size: statSync(path).size, covered: statSync(path).size });
    // One number's entry: its record read back by offset.
    assert.deepEqual(openOptOuts(join(path, '..', '..'), 'ACME', proc).get(n(7)), { number: n(7), since: '2030-01-01T00:00:00.000Z', reason: 'opt-out', source: 'import' });
  });

  test('kept current by writers: add, remove and add again, the index stepped on and never read whole again', async () => {
    const path = store(100);
    agree(path, [n(1)]);
    const made = statSync(indexPath(path)).ino;
    const s = OptOutStore.open(path, proc);
    await s.remove([{ number: n(1), source: 'manual' }], writer('2030-02-01T00:00:00.000Z'));
    await s.add([{ number: n(1), source: 'reply', evidence: { text: 'STOP' } }, { number: n(500), source: 'reply' }], writer('2030-03-01T00:00:00.000Z'));
    await s.add([{ number: n(1), source: 'manual' }], writer('2030-04-01T00:00:00.000Z'));
    // The index describes the store as the writers left it, changed in place (made again, it
    // would be another file): no whole read needed.
    assert.deepEqual(indexStamp(path), { size: statSync(path).size, covered: statSync(path).size });
    assert.equal(statSync(indexPath(path)).ino, made);
    const e = openOptOuts(join(path, '..', '..'), 'ACME', proc).get(n(1));
    assert.equal(e?.since, '2030-03-01T00:00:00.000Z');
    assert.deepEqual(e?.evidence, { text: 'STOP' });
    agree(path, [n(1), n(2), n(500)]);
  });

  test('appended by another writer that does not keep it (an older msgr, or one killed between its append and its index): made again', () => {
    const path = store(100);
    agree(path, [n(1)]);
    const before = indexStamp(path);
    appendFileSync(path, line('remove', n(1)) + line('add', n(777)));
    agree(path, [n(1), n(777)]);
    assert.notDeepEqual(indexStamp(path), before);
  });

  test('a hand edit: the same size and a changed line, a shorter file, another file at the path: made again', () => {
    const path = store(100);
    agree(path, [n(3)]);
    // Same size, one number changed by hand, modification time put back: the change time still tells.
    const text = readFileSync(path, 'utf8');
    const { atime, mtime } = statSync(path);
    writeFileSync(path, text.replace(n(3), n(99)));
    utimesSync(path, atime, mtime);
    assert.equal(statSync(path).size, text.length);
    agree(path, [n(3), n(99)]);
    assert.equal(openOptOuts(join(path, '..', '..'), 'ACME', proc).has(n(3)), false);
    // Cut inside a record that names its number: a damaged opt-out, which stops a sender.
    truncateSync(path, text.indexOf(n(50)) - 30);
    assert.throws(() => openOptOuts(join(path, '..', '..'), 'ACME', proc), DamagedStoreError);
    // Cut before its number: nothing it names, so passed over, and the index made again agrees.
    truncateSync(path, text.lastIndexOf('\n', text.indexOf(n(49))) + 6);
    agree(path, [n(48), n(49), n(50), n(60)]);
    assert.equal(openOptOuts(join(path, '..', '..'), 'ACME', proc).has(n(48)), true);
    assert.equal(openOptOuts(join(path, '..', '..'), 'ACME', proc).has(n(49)), false);
    const other = `${path}.other`;
    writeFileSync(other, line('add', n(90000)));
    renameSync(other, path);
    agree(path, [n(1), n(90000)]);
  });

  test('an index cut short, damaged, from another format or another store: never used, made again', () => {
    const path = store(300);
    agree(path, [n(1)]);
    const idx = indexPath(path);
    truncateSync(idx, statSync(idx).size - 100);
    assert.throws(() => StoreIndex.open(idx), IndexUnusable);
    agree(path, [n(1), n(299)]);
    // A used slot's bytes changed (a torn write): its checksum says so on the look-up.
    const bytes = readFileSync(idx);
    let slot = 4096;
    while (bytes.readUIntLE(slot, 6) === 0) slot += 32;
    bytes[slot + 12] = (bytes[slot + 12] as number) ^ 0xff;
    writeFileSync(idx, bytes);
    const touched = `+${bytes.readUIntLE(slot, 6) + (bytes[slot + 6] as number) * 2 ** 48}`;
    const i = StoreIndex.open(idx);
    assert.throws(() => i?.get(touched), IndexUnusable);
    i?.close();
    agree(path, [touched, ...Array.from({ length: 300 }, (_, k) => n(k))]);
    // Another version's header.
    const again = readFileSync(idx);
    again.writeUInt32LE(99, 8);
    writeFileSync(idx, again);
    assert.throws(() => StoreIndex.open(idx), IndexUnusable);
    agree(path, [n(1)]);
    // Another store's index copied beside this one.
    const other = store(10);
    agree(other, [n(1)]);
    copyFileSync(indexPath(other), idx);
    agree(path, [n(1), n(200)]);
  });

  test('a folder that cannot be written: answered from an index made in memory, each time', () => {
    if (process.getuid?.() === 0) return; // root writes anyway
    const path = store(50);
    chmodSync(join(path, '..'), 0o500);
    try {
      agree(path, [n(1), n(60)]);
      assert.equal(existsSync(indexPath(path)), false);
    } finally {
      chmodSync(join(path, '..'), 0o700);
    }
  });

  test('a table that fills up is made larger; the counts follow every change', async () => {
    const path = store(10);
    agree(path, [n(1)]);
    const s = OptOutStore.open(path, proc);
    const many = Array.from({ length: 2000 }, (_, i) => ({ number: n(20_000 + i), source: 'import' }));
    await s.add(many, writer());
    await s.remove([{ number: n(20_000), source: 'manual' }, { number: n(1), source: 'manual' }], writer());
    const i = StoreIndex.open(indexPath(path));
    assert.equal(i?.summary.optedOut, 10 + 2000 - 2);
    i?.close();
    agree(path, [n(1), n(20_000), n(21_999)]);
  });

  test('two writers at once lose nothing, and the index says what both wrote', async () => {
    const path = store(10);
    agree(path, [n(1)]);
    const a = OptOutStore.open(path, proc);
    const b = OptOutStore.open(path, proc);
    await Promise.all([a.add([{ number: n(100), source: 'a' }], writer()), b.add([{ number: n(101), source: 'b' }], writer()), a.add([{ number: n(102), source: 'a' }], writer())]);
    assert.deepEqual(indexStamp(path), { size: statSync(path).size, covered: statSync(path).size });
    agree(path, [n(100), n(101), n(102)]);
  });

  test('damage appended by hand is found (the index made again names the line) and stops a sender; possible opt-outs go through the index too', async () => {
    const path = store(20);
    agree(path, [n(1)]);
    appendFileSync(path, '+447911199999\n');
    assert.throws(() => openOptOuts(join(path, '..', '..'), 'ACME', proc), DamagedStoreError);
    assert.deepEqual(OptOutStore.open(path, proc).damage.lines, [{ line: 21, text: '+447911199999' }]);
    const clean = store(5);
    const s = OptOutStore.open(clean, proc);
    await s.possible([{ number: n(100), source: 'reply', evidence: { text: 'remove me' } }], writer('2030-01-02T00:00:00.000Z'));
    await s.possible([{ number: n(100), source: 'reply', evidence: { text: 'please remove me' } }], writer('2030-01-03T00:00:00.000Z'));
    const o = openOptOuts(join(clean, '..', '..'), 'ACME', proc);
    assert.deepEqual(o.undecided(n(100)), { number: n(100), since: '2030-01-02T00:00:00.000Z', source: 'reply', evidence: { text: 'please remove me' }, replies: 2 });
    assert.deepEqual(o.pending().map((p) => p.number), [n(100)]);
    assert.deepEqual(OptOutStore.open(clean).pending(), o.pending());
    await s.decide([n(100)], 'accept', writer('2030-01-04T00:00:00.000Z'));
    const after = openOptOuts(join(clean, '..', '..'), 'ACME', proc);
    assert.equal(after.undecided(n(100)), undefined);
    assert.equal(after.get(n(100))?.since, '2030-01-04T00:00:00.000Z');
    agree(clean, [n(100)]);
  });

  test('no store: nothing opted out, and no index made', () => {
    const state = tmp();
    const o = openOptOuts(state, 'ACME', proc);
    assert.equal(o.size, 0);
    assert.equal(o.has(n(1)), false);
    assert.equal(existsSync(join(state, 'optouts')), false);
    rmSync(state, { recursive: true, force: true });
  });
});
