import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { hook } from '../../../src/http/provider.js';
import { cursorPath, FORWARD_ATTEMPTS, Forwarder, forwardTarget, forwardUrl, forwardWarnings, type ForwardResult } from '../../../src/events/forward.js';
import { tempDir } from '../../support/cli.js';

describe('forward targets', () => {
  test('a user and password become basic authentication, percent-decoded; the URL requests go to and the one shown carry neither', () => {
    const t = forwardTarget('http://app%40user:p%3Ass@127.0.0.1:3000/hooks?apikey=SECRET&x=1');
    assert.equal(t.authorization, `Basic ${Buffer.from('app@user:p:ss').toString('base64')}`);
    assert.equal(t.url.href, 'http://127.0.0.1:3000/hooks?apikey=SECRET&x=1');
    assert.equal(t.shown, 'http://app%40user:***@127.0.0.1:3000/hooks?apikey=***&x=1');
    assert.equal(forwardTarget('https://app.example/h').authorization, undefined);
    assert.throws(() => forwardTarget('http://u:%zz@h/'), (e: unknown) => e instanceof UsageError && e.exitCode === 2 && !e.message.includes('%zz'));
    assert.throws(() => forwardTarget('ftp://h/'), /not an http:\/\/ or https:\/\/ URL/);
  });

  test('plain http to another machine is warned about; a password on the command line too', () => {
    assert.deepEqual(forwardWarnings(forwardTarget('http://127.0.0.1:3000/h'), true, 'MSGR_FORWARD_TO'), []);
    assert.deepEqual(forwardWarnings(forwardTarget('https://u:p@app.example/h'), false, 'MSGR_FORWARD_TO'), []);
    const both = forwardWarnings(forwardTarget('http://u:p@10.0.0.5/h'), true, 'MSGR_FORWARD_TO');
    assert.equal(both.length, 2);
    assert.match(both[0] ?? '', /over plain http/);
    assert.match(both[1] ?? '', /MSGR_FORWARD_TO/);
  });

  test('the event\'s sub-path and query go under the app\'s path, and never above it', () => {
    const base = new URL('http://127.0.0.1:3000/hooks?k=1');
    assert.equal(forwardUrl(base, { path: '/dlr', query: 'a=2' }), 'http://127.0.0.1:3000/hooks/dlr?k=1&a=2');
    assert.equal(forwardUrl(base, { path: '/../../admin' }), 'http://127.0.0.1:3000/hooks/admin?k=1');
    assert.equal(forwardUrl(base, { path: '/%2e%2e/%2e%2e/admin' }), 'http://127.0.0.1:3000/hooks/admin?k=1');
    assert.equal(forwardUrl(base, { path: '/' }), 'http://127.0.0.1:3000/hooks?k=1');
    assert.equal(forwardUrl(new URL('http://h/'), { path: '/x' }), 'http://h/x');
  });
});

describe('the forwarder', () => {
  test('an event the app does not take in its attempts is passed over, said, kept in the file; the next goes on', async () => {
    const seen: string[] = [];
    const app = createServer((req, res) => {
      let b = '';
      req.on('data', (d: Buffer) => (b += d.toString()));
      req.on('end', () => {
        seen.push(b);
        res.writeHead(b.includes('poison') ? 503 : 200).end();
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const dir = tempDir('msgr-forward-');
    const file = join(dir, 'events.jsonl');
    const rec = (id: string, body: string): string => `${JSON.stringify({ v: 1, id, receivedAt: '2030-01-01T00:00:00.000Z', key: `id:${id}`, method: 'POST', path: '/', headers: {}, body })}\n`;
    writeFileSync(file, rec('ev_1', '{"poison":1}') + rec('ev_2', '{"ok":2}'));
    const target = forwardTarget(`http://127.0.0.1:${(app.address() as AddressInfo).port}/h`);
    const results: ForwardResult[] = [];
    const f = new Forwarder({ file, target, cursorFile: cursorPath(file, target.url), startOffset: 0, onResult: (r) => results.push(r), hook, attempts: 3, backoffMs: () => 5 });
    f.start();
    const start = Date.now();
    while (f.delivered < 1 && Date.now() - start < 10_000) await new Promise((r) => setTimeout(r, 10));
    await f.stop();
    app.close();
    assert.deepEqual(results.map((r) => [r.record.id, r.attempt, r.ok, r.skipped ?? null]), [
      ['ev_1', 1, false, null],
      ['ev_1', 2, false, null],
      ['ev_1', 3, false, 'attempts'],
      ['ev_2', 1, true, null],
    ]);
    assert.equal(f.skipped, 1);
    assert.equal(seen.length, 4);
    assert.ok(FORWARD_ATTEMPTS >= 10, 'the default gives an app minutes to come back');
    const cursor = JSON.parse(readFileSync(cursorPath(file, target.url), 'utf8')) as { offset: number; url: string };
    assert.equal(cursor.offset, readFileSync(file).length);
  });
});
