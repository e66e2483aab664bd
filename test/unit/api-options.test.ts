import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseApiOptions, parseHeaders, setField } from '../../src/commands/api/options.js';

describe('msgr api options', () => {
  test('method and path: one argument is the path, two are method and path', () => {
    assert.deepEqual([parseApiOptions('/v2/x', undefined, {}).method, parseApiOptions('/v2/x', undefined, {}).path], [undefined, '/v2/x']);
    assert.equal(parseApiOptions('patch', '/v2/x', {}).method, 'PATCH');
    assert.throws(() => parseApiOptions('GET', undefined, {}), /no path after the method GET/);
  });

  test('fields: text, JSON, nesting and arrays', () => {
    const o: Record<string, unknown> = {};
    for (const f of ['a.b=1', 'a.c:=2', 'list[]=x', 'list[]=y', 'rows[].n:=1', 'eq=a=b']) setField(o, f);
    assert.deepEqual(o, { a: { b: '1', c: 2 }, list: ['x', 'y'], rows: [{ n: 1 }], eq: 'a=b' });
    assert.throws(() => setField({ a: 'x' }, 'a.b=1'), /not an object/);
    assert.throws(() => setField({}, 'novalue'), /not key=value/);
  });

  test('headers: names checked, the key refused without echoing it', () => {
    assert.deepEqual(parseHeaders(['Idempotency-Key: k1', 'X-A:b']), { 'idempotency-key': 'k1', 'x-a': 'b' });
    assert.throws(() => parseHeaders(['X-Api-Key: secret']), (e: Error) => !e.message.includes('secret'));
    assert.throws(() => parseHeaders(['Host: x']), /set by msgr itself/);
    assert.throws(() => parseHeaders(['no colon']), /not "Name: value"/);
  });
});
