// The sandbox's Idempotency-Key cache (src/sandbox/idempotency.ts): least recently used first
// out, and out in sweeps of a tenth, so a full cache costs no more per key than an empty one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdempotencyCache, type IdempotencyEntry } from '../../../src/sandbox/idempotency.js';

const entry = (n: number): IdempotencyEntry => ({ state: 'done', hash: `h${n}`, token: `t${n}`, receivedAt: '' });

test('a full cache forgets its least recently used tenth at once, and a key read again counts as recent', () => {
  const cache = new IdempotencyCache(20);
  for (let i = 0; i < 20; i++) cache.set(`k${i}`, entry(i));
  assert.equal(cache.size, 20);
  // k0 read again: now the most recent.
  assert.equal(cache.get('k0')?.hash, 'h0');
  cache.set('k20', entry(20));
  // 21 keys, one over: that one and a tenth of the capacity (2) go, the oldest first.
  assert.equal(cache.size, 18);
  for (const gone of ['k1', 'k2', 'k3']) assert.equal(cache.peek(gone), undefined, gone);
  for (const kept of ['k0', 'k4', 'k19', 'k20']) assert.notEqual(cache.peek(kept), undefined, kept);
  // Below the capacity again, nothing more goes until it is full.
  cache.set('k21', entry(21));
  cache.set('k22', entry(22));
  assert.equal(cache.size, 20);
  assert.notEqual(cache.peek('k4'), undefined);
});

test('a cache kept full by many more keys than it holds stays within its capacity and keeps the newest', () => {
  const cache = new IdempotencyCache(1_000);
  for (let i = 0; i < 50_000; i++) cache.set(`k${i}`, entry(i));
  assert.ok(cache.size <= 1_000 && cache.size >= 900, String(cache.size));
  for (let i = 49_100; i < 50_000; i++) assert.notEqual(cache.peek(`k${i}`), undefined, `k${i}`);
  assert.equal(cache.peek('k48000'), undefined);
});
