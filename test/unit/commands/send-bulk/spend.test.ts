// What a campaign may spend, in-process against a fake API: a canary (--limit) and its resume,
// --max-cost, --mobile-only, --gsm-safe (docs/cost-and-canary.md). Every request that would have
// left is asserted at the fake API.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../../../src/errors.js';
import { fakeApi, type FakeRequest } from '../../../support/fake-api.js';
import { fakeContext } from '../../../support/fake-context.js';
import { bulkFiles, sendBulk as run } from '../../../support/in-process.js';

const numbersOf = (r: FakeRequest): string[] => (r.body.recipients ?? []).map((x) => x.msisdn);

/** The journal lines of the one run in a state folder. */
function journalLines(stateDir: string): Array<Record<string, unknown>> {
  const runs = join(stateDir, 'runs');
  const folder = readdirSync(runs).find((f) => f.startsWith('list.csv-'));
  assert.ok(folder !== undefined, 'no run folder');
  return readFileSync(join(runs, folder, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('--limit: a canary', () => {
  test('the first whole requests within the limit go, the journal says why the run stopped, and --resume sends the rest exactly once', async () => {
    const c = bulkFiles(25, 'msgr-limit-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hello', '--batch-size', '5'];
    const first = fakeApi();
    const ctx = fakeContext({ env: c.env, http: first.http });
    const err = await run(ctx, [...argv, '--limit', '12', '--json']);
    assert.equal(err, undefined, err?.message);
    // Whole requests of 5 within 12: two of them, 10 rows.
    assert.deepEqual(first.requests.map(numbersOf), [c.numbers.slice(0, 5), c.numbers.slice(5, 10)]);
    const doc = JSON.parse(ctx.out()) as { accepted: number; notSent: number; stopped: string; resume: string; spend: { limit: number }; exitCode: number };
    assert.deepEqual([doc.accepted, doc.notSent, doc.stopped, doc.spend.limit, doc.exitCode], [10, 15, 'limit', 12, ExitCode.OK]);
    assert.match(doc.resume, /--resume/);
    assert.match(ctx.err(), /--limit 12: this command sends the first 12 recipients \(10: requests of 5 are never split\), then stops; a resume sends the rest/);
    assert.match(ctx.err(), /stopped at --limit 12: 15 recipients left to send; send them with: msgr send-bulk .*--resume/);
    const stop = journalLines(c.env.MSGR_CONFIG_DIR).filter((l) => l.type === 'stop');
    assert.deepEqual(stop.map((l) => [l.reason, l.limit]), [['limit', 12]]);

    const second = fakeApi();
    assert.equal(await run(fakeContext({ env: c.env, http: second.http }), [...argv, '--resume']), undefined);
    assert.deepEqual(second.requests.map(numbersOf), [c.numbers.slice(10, 15), c.numbers.slice(15, 20), c.numbers.slice(20, 25)]);
    // Together: every row once.
    const all = [...first.requests, ...second.requests].flatMap(numbersOf);
    assert.deepEqual(all, c.numbers);
    assert.equal(new Set([...first.requests, ...second.requests].map((r) => r.idempotencyKey)).size, 5);
  });

  test('a canary smaller than a request is sent exactly: the run\'s requests are that size', async () => {
    const c = bulkFiles(8, 'msgr-limit-');
    const api = fakeApi();
    const err = await run(fakeContext({ env: c.env, http: api.http }), [c.file, '--from', 'Acme', '--text', 'Hello', '--limit', '3']);
    assert.equal(err, undefined, err?.message);
    assert.deepEqual(api.requests.map(numbersOf), [c.numbers.slice(0, 3)]);
  });

  test('a limit smaller than the request size given is refused before anything is sent, offering what works', async () => {
    const c = bulkFiles(8, 'msgr-limit-');
    const api = fakeApi();
    const err = await run(fakeContext({ env: c.env, http: api.http }), [c.file, '--from', 'Acme', '--text', 'Hello', '--limit', '3', '--batch-size', '5']);
    assert.equal(err?.exitCode, ExitCode.USAGE);
    assert.match(err?.message ?? '', /--limit 3 is smaller than one request of 5 recipients: nothing would be sent/);
    assert.equal(err?.hint, 'Give --limit 5, or --batch-size 3 with it.');
    assert.equal(api.requests.length, 0);
  });

  test('a limit as large as the file sends everything and ends as a run that finished', async () => {
    const c = bulkFiles(4, 'msgr-limit-');
    const api = fakeApi();
    const ctx = fakeContext({ env: c.env, http: api.http });
    assert.equal(await run(ctx, [c.file, '--from', 'Acme', '--text', 'Hello', '--limit', '4', '--json']), undefined);
    const doc = JSON.parse(ctx.out()) as { accepted: number; stopped: string | null; resume: string | null };
    assert.deepEqual([doc.accepted, doc.stopped, doc.resume], [4, null, null]);
  });
});
