import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { Dedup, dedupKey } from '../../../src/events/dedup.js';
import { summarise } from '../../../src/events/fields.js';
import { keptHeaders, keptQuery, MAX_EVENTS_PER_BODY, parseEventBody, splitBody, subPath, TooManyEventsError } from '../../../src/events/saved-event.js';

describe('bodies into events', () => {
  test('a JSON array is one event per element; an object, a form, text and bytes are one each', () => {
    const arr = splitBody(Buffer.from('[{"id":"a"},{"id":"b"}]'), 'application/json');
    assert.deepEqual(arr.map((e) => [e.body, e.item]), [['{"id":"a"}', { index: 0, of: 2 }], ['{"id":"b"}', { index: 1, of: 2 }]]);
    assert.deepEqual(splitBody(Buffer.from('[]'), 'application/json'), []);
    const obj = splitBody(Buffer.from(' {"a": 1}'), 'text/plain');
    assert.deepEqual(obj.map((e) => e.parsed), [{ a: 1 }]);
    assert.deepEqual(splitBody(Buffer.from('a=1&b=x+y'), 'application/x-www-form-urlencoded; charset=utf-8')[0]?.parsed, { a: '1', b: 'x y' });
    assert.equal(splitBody(Buffer.from('{not json'), 'application/json')[0]?.parsed, '{not json');
    assert.equal(splitBody(Buffer.from('hello'), undefined)[0]?.body, 'hello');
    const bytes = splitBody(Buffer.from([0xff, 0xfe, 0x00]), 'application/octet-stream')[0];
    assert.equal(bytes?.bodyBase64, '//4A');
    assert.equal(bytes?.body, undefined);
  });

  test('an array nested too deep to write back as JSON is one event, kept byte for byte; more events than a body may hold throw', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const [one, ...none] = splitBody(Buffer.from(deep), 'application/json');
    assert.equal(none.length, 0);
    // Node 20 and 24 cannot write the element back as JSON: the array is kept whole, byte for
    // byte. Node 26's V8 can: the array is split into its one element, as any array of events is.
    if (one?.body === deep) assert.equal(one.item, undefined);
    else assert.equal(one?.body, deep.slice(1, -1));
    assert.throws(() => splitBody(Buffer.from(JSON.stringify(Array.from({ length: MAX_EVENTS_PER_BODY + 1 }, () => 0))), 'application/json', MAX_EVENTS_PER_BODY), (e: unknown) => e instanceof TooManyEventsError && e.count === MAX_EVENTS_PER_BODY + 1);
    assert.equal(splitBody(Buffer.from(JSON.stringify(Array.from({ length: MAX_EVENTS_PER_BODY }, () => 0))), 'application/json', MAX_EVENTS_PER_BODY).length, MAX_EVENTS_PER_BODY);
  });

  test('a sub-path never climbs above its start, in any spelling of its dots and slashes', () => {
    const cases: Array<[string, string]> = [
      ['/', '/'],
      ['', '/'],
      ['/dlr', '/dlr'],
      ['/dlr/', '/dlr/'],
      ['/../../admin/delete-all', '/admin/delete-all'],
      ['/dlr/%2e%2e/%2E%2E/admin', '/admin'],
      ['/.%2e/%2e./admin', '/admin'],
      ['/..%2f..%2fadmin', '/admin'],
      ['/..%5c..%5Cadmin', '/admin'],
      ['/a\\..\\..\\admin', '/admin'],
      ['//evil.example/x', '/evil.example/x'],
      ['/a/./b/../c', '/a/c'],
      ['/a/..', '/'],
      ['/a%2eb/c', '/a%2eb/c'],
      ['/%252e%252e/x', '/%252e%252e/x'],
    ];
    for (const [given, kept] of cases) assert.equal(subPath(given), kept, given);
  });

  test('a header value that carries the listener\'s token keeps its value with it hidden, or is dropped', () => {
    const hide = (v: string): string | undefined => (v.includes('%2D') ? undefined : v.split('tok').join('***'));
    assert.deepEqual(keptHeaders({ referer: 'http://h/tok/x', 'x-original-uri': '/tok', 'x-other': 'a%2Db', 'user-agent': 'ua' }, hide), { referer: 'http://h/***/x', 'x-original-uri': '/***', 'user-agent': 'ua' });
  });

  test('a saved record parses back as it came in', () => {
    assert.deepEqual(parseEventBody({ body: '{"id":"b"}', item: { index: 1, of: 2 }, method: 'POST' }), { id: 'b' });
    assert.deepEqual(parseEventBody({ body: 'x=1', contentType: 'application/x-www-form-urlencoded', method: 'POST' }), { x: '1' });
    assert.deepEqual(parseEventBody({ method: 'GET', query: 'status=delivered&id=1' }), { status: 'delivered', id: '1' });
  });

  test('headers and query parameters that carry secrets are never kept; hop-by-hop headers neither', () => {
    const kept = keptHeaders({ authorization: 'Bearer s', cookie: 'c', 'x-api-key': 'k', 'x-msgr-token': 't', 'x-auth-token': 'a', 'x-twilio-signature': 'sig', 'user-agent': 'ua', host: 'h', 'content-length': '3', connection: 'keep-alive', 'content-type': 'x', 'x-dup': ['1', '2'] });
    assert.deepEqual(kept, { 'x-twilio-signature': 'sig', 'user-agent': 'ua', 'x-dup': '1, 2' });
    assert.equal(keptQuery('status=ok&token=abc&api_key=z'), 'status=ok');
    assert.equal(keptQuery('token=abc'), undefined);
    assert.equal(keptQuery('a=1'), 'a=1');
  });
});

describe('duplicates', () => {
  test('by event id (with status and part), else an idempotency header, else the body', () => {
    const s = summarise({ id: 'e1', messageId: 'm', status: 'delivered' });
    assert.equal(dedupKey(s, {}, Buffer.from('x'), undefined), 'id:e1|delivered');
    assert.equal(dedupKey(summarise({ status: 'sent' }), { 'webhook-id': 'w1' }, Buffer.from('x'), { index: 2 }), 'hdr:w1#2');
    const body = Buffer.from('plain');
    assert.equal(dedupKey(summarise('plain'), {}, body, undefined), `body:${createHash('sha256').update(body).digest('base64url')}`);
  });

  test('bodies count within their window only; ids until they are pushed out; a failed write frees its key', async () => {
    const d = new Dedup(1_000, 10);
    d.remember('body:a', 1_000);
    assert.ok(d.find('body:a', 1_500) !== undefined);
    assert.equal(d.find('body:a', 2_001), undefined);
    d.remember('body:old', 0, undefined, 5_000);
    assert.equal(d.find('body:old', 5_000), undefined);
    for (let i = 0; i < 11; i++) d.remember(`id:${i}`, 0);
    assert.equal(d.find('id:0', 0), undefined);
    assert.ok(d.find('id:10', 0) !== undefined);
    let release!: () => void;
    const durable = new Promise<void>((r) => (release = r));
    d.remember('id:x', 0, durable);
    assert.equal(d.find('id:x', 0)?.durable, durable);
    release();
    await durable;
    await Promise.resolve();
    assert.equal(d.find('id:x', 0)?.durable, undefined);
    d.forget('id:x');
    assert.equal(d.find('id:x', 0), undefined);
  });
});
