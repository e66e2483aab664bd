// A profile's send window is fixed where it is kept: its refusal names the setting and offers
// `msgr profile set`, never a flag the command does not take.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bulkFiles, runInProcess } from '../../../support/in-process.js';

test('profile set NAME window with a bad window: exit 2 naming the setting, and the hint\'s command is accepted', async () => {
  const c = bulkFiles(1, 'msgr-profile-window-');
  assert.equal((await runInProcess(['profile', 'add', 'shop', '--api-key-stdin', '--account', 'SHOP01', '-q'], { env: c.env, input: 'shop-key-1234\n' })).code, 0);
  const refused = await runInProcess(['profile', 'set', 'shop', 'window', '25:00-26:00'], { env: c.env });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^error: profile shop window: /m);
  assert.doesNotMatch(refused.stderr, /--window/);
  const offered = /hint: For example (msgr profile set shop window '08:00-21:00')/.exec(refused.stderr);
  assert.ok(offered !== null, refused.stderr);
  const accepted = await runInProcess(['profile', 'set', 'shop', 'window', '08:00-21:00', '-q'], { env: c.env });
  assert.equal(accepted.code, 0, accepted.stderr);
  const spaced = await runInProcess(['profile', 'set', 'shop', 'window', 'mon-fri:09:00-20:00 sat:10:00-16:00', '-q'], { env: c.env });
  assert.equal(spaced.code, 0, spaced.stderr);
});
