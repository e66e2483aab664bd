// --any-time leaves a trace a script can read: the --json schedule names the profile's window it
// set aside; a run without a window says so when resumed under a profile with quiet hours.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeApi } from '../../../support/fake-api.js';
import { bulkFiles, runInProcess } from '../../../support/in-process.js';

test('send-bulk --any-time --dry-run --json: schedule.setAside names the profile and its window; without --any-time there is none', async () => {
  const c = bulkFiles(2, 'msgr-any-time-');
  assert.equal((await runInProcess(['profile', 'add', 'shop', '--api-key-stdin', '--account', 'SHOP01', '-q'], { env: c.env, input: 'shop-key-1234\n' })).code, 0);
  assert.equal((await runInProcess(['profile', 'set', 'shop', 'window', '08:00-21:00', '-q'], { env: c.env })).code, 0);
  const env = { ...c.env, MSGR_PROFILE: 'shop' };
  const r = await runInProcess(['send-bulk', c.file, '--from', 'Acme', '--text', 'Hi', '--any-time', '--dry-run', '--json'], { env, http: fakeApi().http });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { schedule: { windows: string[]; setAside?: { profile: string | null; run: string | null; windows: string[] } } | null };
  assert.deepEqual(doc.schedule, { windows: [], tz: null, notBefore: null, stopAt: null, setAside: { profile: 'shop', run: null, windows: ['08:00-21:00'] } });
  const kept = await runInProcess(['send-bulk', c.file, '--from', 'Acme', '--text', 'Hi', '--dry-run', '--json'], { env, http: fakeApi().http });
  const keptDoc = JSON.parse(kept.stdout) as { schedule: { windows: string[]; setAside?: unknown } | null };
  assert.deepEqual(keptDoc.schedule?.windows, ['08:00-21:00']);
  assert.equal(keptDoc.schedule?.setAside, undefined);
});

test('a resume of an --any-time run under a profile with quiet hours says the run has no window and how to get one', async () => {
  const c = bulkFiles(2, 'msgr-any-time-resume-');
  assert.equal((await runInProcess(['profile', 'add', 'shop', '--api-key-stdin', '--account', 'SHOP01', '-q'], { env: c.env, input: 'shop-key-1234\n' })).code, 0);
  assert.equal((await runInProcess(['profile', 'set', 'shop', 'window', '08:00-21:00', '-q'], { env: c.env })).code, 0);
  const env = { ...c.env, MSGR_PROFILE: 'shop' };
  const api = fakeApi();
  const first = await runInProcess(['send-bulk', c.file, '--from', 'Acme', '--text', 'Hi', '--any-time', '--limit', '1', '--yes'], { env, http: api.http });
  assert.equal(first.code, 0, first.stderr);
  const again = await runInProcess(['send-bulk', c.file, '--from', 'Acme', '--text', 'Hi', '--resume', '--yes'], { env, http: api.http });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /when: run \S+ was started with no send window \(--any-time, or before the profile had one\): it has none, and the profile's window \(08:00-21:00\) does not apply to it; to send the rest in that window, start over with --restart/);
});
