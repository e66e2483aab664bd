import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paint } from '../../../src/output/ui.js';

test('paint(0) leaves text as chalk at level 0 would: any chain of styles, arguments joined by spaces', () => {
  const c = paint(0);
  assert.equal(c.level, 0);
  assert.equal(c.red('error:'), 'error:');
  assert.equal(c.bold.yellow.underline('a', 'b', 3), 'a b 3');
  assert.equal(c.dim(), '');
});

test('paint(n > 0) colours', () => {
  const c = paint(1);
  assert.equal(c.level, 1);
  assert.equal(c.red('x'), '\u001b[31mx\u001b[39m');
});
