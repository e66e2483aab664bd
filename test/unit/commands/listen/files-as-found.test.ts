// msgr listen and the sandbox take their files as they find them (docs/events.md: "The events
// file"), in-process: loose modes of the token, the events and their folder, and of the sandbox's
// record files, tightened with one warning; a last line whole but for its newline kept.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { eventIds } from '../../../support/files.js';
import { LISTENING, SANDBOX_URL } from '../../../support/daemon.js';
import { startInProcess } from '../../../support/in-process.js';

const TOKEN = 'files-as-found-token-0123456789';

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('files as msgr listen and the sandbox find them', () => {
  test('loose modes are tightened with one warning; a last line whole but for its newline is kept', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const events = join(dir, 'events');
    mkdirSync(events, { mode: 0o755 });
    chmodSync(events, 0o755);
    const token = join(events, '_all.token');
    writeFileSync(token, `${TOKEN}\n`, { mode: 0o644 });
    chmodSync(token, 0o644);
    const out = join(events, '_all.jsonl');
    const whole = JSON.stringify({ v: 1, id: 'ev_old_1', receivedAt: '2030-01-01T00:00:00.000Z', key: 'id:kept', method: 'POST', path: '/', headers: {}, body: '{"id":"kept"}' });
    writeFileSync(out, whole, { mode: 0o644 });
    chmodSync(out, 0o644);
    const listen = await startInProcess(['listen', '--port', '0'], env, LISTENING);
    try {
      const again = await fetch(listen.ready, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"kept"}' });
      assert.equal(again.headers.get('x-msgr-duplicates'), '1', 'the kept line is known: its retry is a duplicate');
      assert.equal((await fetch(listen.ready, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"new"}' })).status, 200);
    } finally {
      assert.equal((await listen.stop()).code, 0);
    }
    assert.equal(readFileSync(out, 'utf8').split('\n')[0], whole);
    assert.deepEqual([...eventIds(out)], ['kept', 'new']);
    assert.deepEqual([mode(events), mode(token), mode(out)], [0o700, 0o600, 0o600]);
    const warnings = listen.stderr().split('\n').filter((l) => l.startsWith('warning:'));
    assert.equal(warnings.length, 1, listen.stderr());
    assert.match(warnings[0] ?? '', /token, events or their folders could be read by other users; msgr made them private: .*events \(was 0755, now 0700\), .*_all\.token \(was 0644, now 0600\), .*_all\.jsonl \(was 0644, now 0600\)/);
    assert.match(listen.stderr(), /had no newline at its end .*kept, and its newline added/);
    assert.doesNotMatch(listen.stderr(), /cut an unfinished/);

    // The sandbox's record files: made 0600, and tightened when they were not.
    const record = join(dir, 'sent.jsonl');
    writeFileSync(record, '', { mode: 0o644 });
    chmodSync(record, 0o644);
    const hooks = join(dir, 'hooks.jsonl');
    const sbx = await startInProcess(['sandbox', '--port', '0', '--record', record, '--webhook-url', 'http://127.0.0.1:9/x', '--webhook-record', hooks], env, SANDBOX_URL);
    await sbx.stop();
    assert.deepEqual([mode(record), mode(hooks)], [0o600, 0o600]);
    assert.match(sbx.stderr(), /warning: the sandbox's record files could be read by other users; msgr made it private: .*sent\.jsonl \(was 0644, now 0600\)/);
  });
});
