// The sandbox's worker threads (src/sandbox/pool.ts) give exactly the verdicts and 202 bodies of
// the server's own thread (src/sandbox/examine.ts), and a pool that goes away mid-job still
// answers every job it took.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { examineBody, type Examined, type ExamineJob } from '../../../src/sandbox/examine.js';
import { ExaminePool } from '../../../src/sandbox/pool.js';

const job: ExamineJob = { nowMs: Date.parse('2026-01-01T00:00:00.000Z'), token: '0123456789abcdef', receivedAt: '2026-01-01T00:00:00.000Z', hash: true, record: true };

function body(recipients: unknown[], extra: Record<string, unknown> = {}): Uint8Array {
  return Buffer.from(JSON.stringify({ accountReference: 'ACME01', channel: 'RCS', from: 'Acme', body: { text: 'Hi {{name}}' }, recipients, ...extra }));
}

const many = (n: number): unknown[] => Array.from({ length: n }, (_, i) => ({ msisdn: `+4479111${String(i).padStart(5, '0')}`, variables: { name: i % 3 === 0 ? `Chloé${i}` : `N${i}` } }));

/** The body as text, whichever thread encoded it. */
function plain(r: Examined): unknown {
  return r.kind === 'valid' ? { ...r, body: typeof r.body === 'string' ? r.body : Buffer.from(r.body).toString('utf8') } : r;
}

describe('sandbox worker pool', () => {
  test('same verdicts as examineBody: valid, invalid fields, bad JSON, bad UTF-8', async () => {
    const pool = new ExaminePool(2);
    try {
      const cases = [
        body(many(2000)),
        body([...many(10), { msisdn: '0044' }, { msisdn: '+44791112345', extra: 1 }]),
        body(many(3), { validity: '2020-01-01T00:00:00.000+00:00' }),
        Buffer.from('{"accountReference": "ACME01", '),
        Buffer.concat([body(many(5)).subarray(0, 40), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
        Buffer.from('[1,2,3]'),
      ];
      const got = await Promise.all(cases.map((c) => pool.run(c, job)));
      assert.deepEqual(got.map(plain), cases.map((c) => plain(examineBody(c, job))));
      assert.deepEqual(got.map((r) => r.kind), ['valid', 'invalid', 'invalid', 'not-json', 'not-utf8', 'invalid']);
      const first = got[0];
      assert.ok(first?.kind === 'valid' && first.body instanceof Uint8Array, 'a worker hands back the encoded body');
    } finally {
      await pool.close();
    }
  });

  test('a pool closed with jobs in flight answers them on this thread, and every later one', async () => {
    const pool = new ExaminePool(1);
    const big = body(many(5000));
    const pending = [pool.run(big, job), pool.run(big, job)];
    await pool.close();
    assert.equal(pool.usable, false);
    const after = await pool.run(big, job);
    for (const r of [...(await Promise.all(pending)), after]) assert.deepEqual(plain(r), plain(examineBody(big, job)));
    assert.equal(typeof after.kind === 'string' && after.kind === 'valid' && typeof after.body, 'string');
  });
});
