// `msgr send --once KEY` from a webhook handler that retries: sent once, a repeat prints the first
// answer and sends nothing, another message under the key is refused; a first attempt that got no
// answer, was not sent or was refused is sent again with the same Idempotency-Key.
// In-process (test/support/in-process.ts), against a scriptable server on 127.0.0.1; e2e keeps two
// deliveries at once, two processes and one lock (test/e2e/once.test.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { csv, env as bulkEnv } from '../../../support/bulk-inputs.js';
import { tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { type ScriptedResponse, useTestServer } from '../../../support/test-server.js';

const env = (baseUrl: string, config: string): Record<string, string> => bulkEnv(baseUrl, {}, config);

function msgr(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runInProcess(args, { env: e });
}

const ACCEPT: ScriptedResponse = { status: 202, body: { status: 'accepted', messages: [{ id: 'm-1' }] } };

describe('send --once: one message, once', () => {
  const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });
  const send = ['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'Order 1234 has shipped'];

  test('sent once: a repeat prints the first answer again and sends nothing; another message under the key is refused, quoting it; --validity anew is the same message', async () => {
    const config = join(tempDir(), 'state');
    const first = await msgr([...send, '--once', 'order-1234-shipped', '--validity', '2h', '--json'], env(server.url, config));
    assert.equal(first.code, 0, first.stderr);
    assert.equal(server.requests.length, 1);
    assert.match(server.requests[0]?.headers['idempotency-key']?.toString() ?? '', /^msgr-once-order-1234-shipped-[0-9a-f]{16}$/);
    const again = await msgr([...send, '--once', 'order-1234-shipped', '--validity', '2h', '--json'], env(server.url, config));
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, first.stdout, 'the same answer for a script to read');
    assert.match(again.stderr, /^already done: --once order-1234-shipped was accepted at \S+; nothing was sent$/m);
    assert.equal(server.requests.length, 1);
    // A dry run prints the request (the one the key sent), as every dry run does: not the old answer.
    const dry = await msgr([...send, '--once', 'order-1234-shipped', '--validity', '2h', '--dry-run'], env(server.url, config));
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(JSON.parse(dry.stdout), server.requests[0]?.json);
    assert.match(dry.stderr, /^dry run: already done: --once order-1234-shipped was accepted at \S+; the same command without --dry-run sends nothing$/m);
    assert.equal(server.requests.length, 1);
    const other = await msgr(['send', '--to', '+447911123457', '--from', 'Acme', '--text', 'Order 1234 has shipped', '--once', 'order-1234-shipped'], env(server.url, config));
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /^error: --once order-1234-shipped was used at \S+ for text "Order 1234 has shipped" from Acme to \+447911123456 \(accepted at \S+ \(HTTP 202\)\); this command sends another message \(recipients differ\); nothing was sent$/m);
    // A key names one thing: send-bulk with it is refused too.
    const file = csv(['msisdn', '+447911100700', '+447911100701'], 'c.csv');
    const bulk = await msgr(['send-bulk', file, '--from', 'Acme', '--text', 'hi', '--once', 'order-1234-shipped'], env(server.url, config));
    assert.equal(bulk.code, 2, bulk.stderr);
    assert.match(bulk.stderr, /--once order-1234-shipped was used by msgr send/);
    assert.equal(server.requests.length, 1);
  });

  test('a first attempt with no answer (exit 6), not sent (exit 5) or rejected (exit 4): the repeat sends the same request with the same Idempotency-Key, then it is done', async () => {
    for (const [first, code] of [[{ status: 500, body: { title: 'boom' } }, 6], [{ status: 429, headers: { 'retry-after': '600' }, body: {} }, 5], [{ status: 422, body: { title: 'Unprocessable' } }, 4]] as Array<[ScriptedResponse, number]>) {
      server.requests.length = 0;
      const config = join(tempDir(), 'state');
      const args = [...send, '--once', `order-${code}`, '--validity', '2h'];
      server.script(first);
      const one = await msgr(args, env(server.url, config));
      assert.equal(one.code, code, one.stderr);
      const two = await msgr(args, env(server.url, config));
      assert.equal(two.code, 0, two.stderr);
      assert.match(two.stderr, /--once order-\d: the attempt at \S+ (got no answer|was not sent|was refused by the API)[^;]*; sending it again with the same Idempotency-Key/);
      assert.equal(server.requests.length, 2);
      const [a, b] = server.requests;
      assert.equal(b?.headers['idempotency-key'], a?.headers['idempotency-key']);
      assert.equal(b?.body, a?.body, 'the same request, validity and all');
      const three = await msgr(args, env(server.url, config));
      assert.equal(three.code, 0, three.stderr);
      assert.match(three.stderr, /already done/);
      assert.equal(server.requests.length, 2);
    }
  });
});
