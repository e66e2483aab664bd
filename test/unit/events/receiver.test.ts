// The receiver's rules that need no second process, proved in-process against a real socket on
// 127.0.0.1: an error anywhere is answered 503 and said once; a stored event whose request got a
// 503 is shown when its retry is answered; a printer's failure never costs an answer.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Dedup } from '../../../src/events/dedup.js';
import { EventLog, StoreError } from '../../../src/events/event-log.js';
import { startListener, type Received } from '../../../src/events/receiver.js';
import { testProcess } from '../../support/fake-context.js';
import { tempDir } from '../../support/cli.js';

const TOKEN = 'unit-receiver-token-0123456789';
const proc = { pid: testProcess.pid, now: () => new Date(), isProcessAlive: testProcess.isProcessAlive };

async function setUp(hooks: { afterStore?: (events: readonly Received[]) => void | Promise<void>; onEvent?: (e: Received) => void }): Promise<{ url: string; file: string; shown: Received[]; errors: unknown[]; refused: Array<[number, string]>; close: () => Promise<void> }> {
  const file = join(tempDir('msgr-receiver-'), 'events.jsonl');
  const { log } = await EventLog.open(file, proc, { command: 'test' });
  const shown: Received[] = [];
  const errors: unknown[] = [];
  const refused: Array<[number, string]> = [];
  const listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    log,
    dedup: new Dedup(),
    ...(hooks.afterStore !== undefined ? { afterStore: hooks.afterStore } : {}),
    onEvent: (e) => {
      shown.push(e);
      hooks.onEvent?.(e);
    },
    onError: (e) => errors.push(e),
    onRefused: (status, why) => refused.push([status, why]),
  });
  return { url: `${listener.url}/${TOKEN}`, file, shown, errors, refused, close: () => listener.close(1_000) };
}

const post = (url: string, body: string): Promise<Response> => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
const records = (file: string): Array<{ id: string }> => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string });

test('an error of msgr\'s own after the event was stored: 503 with Retry-After, said once; the retry is a known duplicate, answered 200 and shown once, as the file has it', async () => {
  let fail = true;
  const s = await setUp({
    afterStore: () => {
      if (fail) {
        fail = false;
        throw new RangeError('Maximum call stack size exceeded');
      }
    },
  });
  try {
    const first = await post(s.url, '{"id":"e1","status":"delivered"}');
    assert.equal(first.status, 503);
    assert.equal(first.headers.get('retry-after'), '5');
    assert.doesNotMatch(await first.text(), /\//, 'no local path in the answer');
    assert.equal(s.errors.length, 1);
    assert.match(String(s.errors[0]), /Maximum call stack/);
    assert.equal(s.shown.length, 0, 'not shown while not answered 2xx');
    const retry = await post(s.url, '{"id":"e1","status":"delivered"}');
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('x-msgr-duplicates'), '1');
    const third = await post(s.url, '{"id":"e1","status":"delivered"}');
    assert.equal(third.status, 200);
    assert.equal(s.errors.length, 1, 'said once');
    assert.equal(s.shown.filter((e) => e.first).length, 1, 'shown once');
    assert.equal(s.shown.find((e) => e.first)?.record.id, records(s.file)[0]?.id, 'shown with the id the file has');
    assert.equal(records(s.file).length, 1);
  } finally {
    await s.close();
  }
});

test('a store error of the opt-outs: 503 naming no path; the retry gets its opt-out through and is shown', async () => {
  let fail = true;
  const s = await setUp({
    afterStore: () => {
      if (fail) {
        fail = false;
        throw new StoreError('EACCES', 'cannot write /secret/place/optouts.jsonl: permission denied');
      }
    },
  });
  try {
    const first = await post(s.url, '{"id":"e2","type":"message.inbound","from":"+447911123456","text":"STOP"}');
    assert.equal(first.status, 503);
    assert.equal(await first.text(), 'not stored: the event could not be stored; retry later\n');
    assert.equal((await post(s.url, '{"id":"e2","type":"message.inbound","from":"+447911123456","text":"STOP"}')).status, 200);
    assert.equal(s.shown.filter((e) => e.first).length, 1);
    assert.equal(s.errors.length, 0, 'a store error is a 503 of its own kind, not an error of msgr');
  } finally {
    await s.close();
  }
});

test('a printer that throws costs neither the answer nor the other events', async () => {
  const s = await setUp({
    onEvent: (e) => {
      if (e.record.body?.includes('"bad"') === true) throw new Error('printer broke');
    },
  });
  try {
    const r = await post(s.url, '[{"id":"bad"},{"id":"good"}]');
    assert.equal(r.status, 200);
    assert.deepEqual(s.shown.map((e) => e.record.body), ['{"id":"bad"}', '{"id":"good"}']);
    assert.equal(s.errors.length, 1);
  } finally {
    await s.close();
  }
});

test('the token base64-encoded in a header of any name (Basic any:TOKEN, base64url, percent-encoded, at any offset) is never stored, so never forwarded', async () => {
  const s = await setUp({});
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  try {
    const headers = {
      'content-type': 'application/json',
      'x-upstream': `Basic ${b64(`any:${TOKEN}`)}`,
      'x-wrapped': b64(`{"t":"${TOKEN}"}`).replace(/=+$/, ''),
      'x-url-safe': Buffer.from(`ab${TOKEN}`).toString('base64url'),
      'x-percent': encodeURIComponent(b64(`u:${TOKEN}`)),
      'x-plain-base64': b64('not the token, only some text that is long enough'),
      'x-kept': 'kept',
    };
    const answer = await fetch(s.url, { method: 'POST', headers, body: '{"id":"h1","status":"delivered"}' });
    assert.equal(answer.status, 200);
    const text = readFileSync(s.file, 'utf8');
    const stored = (JSON.parse(text.split('\n').filter(Boolean)[0] ?? '{}') as { headers?: Record<string, string> }).headers ?? {};
    assert.equal(stored['x-kept'], 'kept');
    assert.equal(stored['x-plain-base64'], headers['x-plain-base64']);
    for (const name of ['x-upstream', 'x-wrapped', 'x-url-safe', 'x-percent']) assert.equal(stored[name], undefined, `${name} was stored`);
  } finally {
    await s.close();
  }
});
