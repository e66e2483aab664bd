// Grouping rows into requests by their message: sizes, windows, order, determinism.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Grouper, type SealedBatch } from '../../../../src/bulk/compose/grouping.js';

function group(keys: readonly string[], batchSize: number, window?: number): Array<SealedBatch<number>> {
  const out: Array<SealedBatch<number>> = [];
  const g = new Grouper<number>(batchSize, (b) => out.push(b), window);
  keys.forEach((k, i) => g.add(k, i));
  g.finish();
  return out;
}
const shape = (batches: Array<SealedBatch<number>>): Array<[string, number[]]> => batches.map((b) => [b.key, b.items]);

describe('grouping rows into requests', () => {
  test('one key for every row: batch k is rows k*size… as with one shared text', () => {
    const batches = group(Array.from({ length: 250 }, () => 'same'), 100);
    assert.deepEqual(batches.map((b) => [b.index, b.first, b.items.length, b.items[0]]), [
      [0, 0, 100, 0],
      [1, 100, 100, 100],
      [2, 200, 50, 200],
    ]);
  });

  test('identical messages share a request; every row is in exactly one batch', () => {
    const keys = ['A', 'B', 'A', 'C', 'B', 'A', 'A'];
    assert.deepEqual(shape(group(keys, 3)), [
      ['A', [0, 2, 5]],
      ['B', [1, 4]],
      ['C', [3]],
      ['A', [6]],
    ]);
  });

  test('a full batch is sealed at once, ahead of older open ones', () => {
    assert.deepEqual(shape(group(['X', 'A', 'A'], 2)), [
      ['A', [1, 2]],
      ['X', [0]],
    ]);
  });

  test('a batch whose first row is `window` rows back is sealed: rows further apart do not share', () => {
    const keys = ['A', 'B', 'C', 'D', 'A', 'E'];
    assert.deepEqual(shape(group(keys, 10, 10)), [
      ['A', [0, 4]],
      ['B', [1]],
      ['C', [2]],
      ['D', [3]],
      ['E', [5]],
    ]);
    // Window 4 (raised to the batch size when smaller): A's batch closes before row 4.
    assert.deepEqual(shape(group(keys, 2, 4)), [
      ['A', [0]],
      ['B', [1]],
      ['C', [2]],
      ['D', [3]],
      ['A', [4]],
      ['E', [5]],
    ]);
  });

  test('the window is never below the batch size (one key must fill its batches)', () => {
    const batches = group(Array.from({ length: 20 }, () => 'k'), 10, 3);
    assert.deepEqual(batches.map((b) => b.items.length), [10, 10]);
  });

  test('every row has a message of its own: one request each, in file order, few open at once', () => {
    const out: Array<SealedBatch<number>> = [];
    let maxOpen = 0;
    const g = new Grouper<number>(100, (b) => out.push(b), 50);
    for (let i = 0; i < 1000; i++) {
      g.add(`message ${i}`, i);
      maxOpen = Math.max(maxOpen, g.open);
    }
    g.finish();
    assert.equal(out.length, 1000);
    assert.deepEqual(out.map((b) => b.items[0]), Array.from({ length: 1000 }, (_, i) => i));
    assert.equal(maxOpen, 100);
  });

  test('the same keys give the same batches, numbered the same (a resumed run rebuilds them)', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const keys = Array.from({ length: 5000 }, () => `m${Math.floor(random() * random() * 300)}`);
    const a = group(keys, 7, 200);
    const b = group(keys, 7, 200);
    assert.deepEqual(a, b);
    const seen = new Set<number>();
    for (const [i, batch] of a.entries()) {
      assert.equal(batch.index, i);
      assert.ok(batch.items.length >= 1 && batch.items.length <= 7);
      for (const item of batch.items) {
        assert.equal(keys[item], batch.key);
        assert.ok(!seen.has(item));
        seen.add(item);
      }
      assert.equal(batch.first, batch.items[0]);
    }
    assert.equal(seen.size, keys.length);
  });
});
