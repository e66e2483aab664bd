import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCount } from '../../../src/output/count.js';

test('formatCount writes numbers as en-US toLocaleString does, without loading ICU', () => {
  const values = [0, 1, -1, 12, 999, 1000, 1234, 99_999, 100_000, 1_234_567, 10_000_000, 2.5, 1234.5678, 0.0004, -1234.5, 3_298.25, Number.MAX_SAFE_INTEGER];
  for (let i = 0; i < 200; i++) values.push(Math.floor(Math.random() * 10 ** (1 + (i % 12))), Math.random() * 10 ** (i % 7));
  for (const v of values) assert.equal(formatCount(v), v.toLocaleString('en-US'), String(v));
});
