import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Command } from 'commander';
import { registerApi } from '../../../../src/commands/api/index.js';
import { parseApiOptions, parseHeaders, setField, type ApiOptions } from '../../../../src/commands/api/options.js';
import { fakeContext } from '../../../support/fake-context.js';

/** argv → ApiOptions through the real Commander wiring, with the run replaced. */
async function parse(argv: string[]): Promise<ApiOptions> {
  const program = new Command('msgr').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let got: ApiOptions | undefined;
  registerApi(program, fakeContext(), (opts) => {
    got = opts;
    return Promise.resolve();
  });
  await program.parseAsync(['api', ...argv], { from: 'user' });
  assert.ok(got !== undefined, 'the run was not called');
  return got;
}

describe('msgr api options', () => {
  test('argv → options: repeated fields and headers, the connection flags of send', async () => {
    const o = await parse(['post', '/v2/messages', '-f', 'a=1', '--field', 'b:=2', '-H', 'X-A: 1', '--timeout', '5', '--json', '-p', 'prod']);
    assert.equal(o.method, 'POST');
    assert.equal(o.path, '/v2/messages');
    assert.deepEqual(o.fields, ['a=1', 'b:=2']);
    assert.deepEqual(o.headers, { 'x-a': '1' });
    assert.equal(o.timeout, 5000);
    assert.equal(o.json, true);
    assert.equal(o.profile, 'prod');
    await assert.rejects(parse(['/v2/x', '-q', '-v']), /--quiet and --verbose cannot be used together/);
  });

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
