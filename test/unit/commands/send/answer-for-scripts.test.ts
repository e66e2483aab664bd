// Into a pipe or a file, `msgr send` prints the API's answer as it always did, so scripts do not
// break (docs/contract.md: "Streams"); the short result is for a terminal (test/e2e/first-impressions.test.ts).
// In-process: a pipe is a Context whose stdout is not a terminal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runInProcess } from '../../../support/in-process.js';
import { oneProfileWith } from '../../../support/profile-home.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'sk_answer_for_scripts_7788';
const server = useTestServer({
  reset: (s) => {
    s.fallback = { status: 202, body: { batchId: 'b-1', messages: [{ id: 'msg-A1', msisdn: '+447911123456' }, { id: 'msg-B2', msisdn: '+447911123457' }] } };
  },
});

const TWO = ['send', '--to', '+447911123456,+447911123457', '--text', 'Your order has shipped'];

test('into a pipe or a file, msgr send prints the API\'s answer as before (scripts do not break)', async () => {
  const env = await oneProfileWith(runInProcess, server.url, KEY);
  const r = await runInProcess(TWO, { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { batchId: string }).batchId, 'b-1');
  assert.match(r.stderr, /accepted by the API \(HTTP 202\) for 2 recipients/);
  assert.doesNotMatch(r.stdout, /message id/);
});
