// The error a bulk run ends with: its --json document is the summary with the error's own exit code.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AuthError, ExitCode, InterruptedError, NotSentError, PartialError, UsageError } from '../../../../src/errors.js';
import type { SendResult } from '../../../../src/bulk/send-pass/accounting.js';
import { printSummary, sentSummary, summaryError, type Summary } from '../../../../src/bulk/display/summary.js';
import { createUi } from '../../../../src/output/ui.js';
import { fakeContext } from '../../../support/fake-context.js';

const base: Summary = {
  runId: 'r1',
  file: '/data/list.csv',
  journal: '/state/journal.jsonl',
  report: null,
  dryRun: false,
  numberColumn: { name: 'msisdn', how: 'only', over: [] },
  rows: 10,
  valid: 10,
  invalid: 0,
  duplicates: 0,
  differentMessages: 0,
  excluded: 0,
  suppressed: 0,
  alreadySent: 0,
  outsidePlan: 0,
  landlines: { count: 0, lines: [] },
  toSend: 10,
  requests: 1,
  batchSize: 10,
  text: null,
  problems: [],
  causes: [],
};

function result(r: Partial<SendResult>): SendResult {
  return { accepted: 0, acceptedEarlier: 0, rejected: 0, inDoubt: 0, notSent: 0, excludedAfterStart: 0, suppressedAfterStart: 0, inDoubtBatches: [], stopped: undefined, throttled: 0, ...r };
}

const clean = (s: string): string => s;

describe('summaryError', () => {
  const cases = [
    { name: 'auth', r: result({ stopped: 'auth', authStatus: 401, authMessage: 'bad key', notSent: 10 }), type: AuthError, code: ExitCode.AUTH },
    { name: 'interrupted', r: result({ stopped: 'interrupted', accepted: 4, notSent: 6 }), type: InterruptedError, code: ExitCode.INTERRUPTED },
    // Batches in doubt need checking, which a resume alone does not do: a stop with any is a partial run.
    { name: 'interrupted with batches in doubt', r: result({ stopped: 'interrupted', accepted: 4, inDoubt: 2, notSent: 4 }), type: PartialError, code: ExitCode.PARTIAL },
    { name: 'disk full', r: result({ stopped: 'disk-full', fullFolder: '/state', accepted: 4, notSent: 6 }), type: InterruptedError, code: ExitCode.INTERRUPTED },
    { name: 'disk full with batches in doubt', r: result({ stopped: 'disk-full', fullFolder: '/state', accepted: 4, inDoubt: 2, notSent: 4 }), type: PartialError, code: ExitCode.PARTIAL },
    { name: 'failing', r: result({ stopped: 'failing', lastFailure: 'ECONNREFUSED', notSent: 10 }), type: PartialError, code: ExitCode.PARTIAL },
    // The API could not be reached: not sent, safe to run again (5), rows accepted before or not.
    { name: 'unreachable', r: result({ stopped: 'unreachable', lastFailure: 'cannot reach api:443: connection refused', notSent: 10 }), type: NotSentError, code: ExitCode.NOT_SENT },
    { name: 'unreachable after rows were accepted', r: result({ stopped: 'unreachable', lastFailure: 'cannot reach api:443: connection refused', accepted: 6, notSent: 4 }), type: NotSentError, code: ExitCode.NOT_SENT },
    { name: 'unreachable with batches in doubt', r: result({ stopped: 'unreachable', lastFailure: 'cannot reach api:443: connection refused', accepted: 4, inDoubt: 2, notSent: 4 }), type: PartialError, code: ExitCode.PARTIAL },
    { name: 'a 404 before anything was accepted', r: result({ stopped: 'config', wrongAddress: 404, lastFailure: 'HTTP 404: Not Found', notSent: 10 }), type: UsageError, code: ExitCode.USAGE },
    { name: 'a 405 after rows were accepted', r: result({ stopped: 'config', wrongAddress: 405, lastFailure: 'HTTP 405: Method Not Allowed', accepted: 4, notSent: 6 }), type: PartialError, code: ExitCode.PARTIAL },
    { name: 'some rejected', r: result({ accepted: 8, rejected: 2 }), type: PartialError, code: ExitCode.PARTIAL },
  ] as const;
  for (const c of cases) {
    test(`${c.name}: the --json document carries the error class's exit code`, () => {
      const summary = sentSummary(base, c.r, 1, 'msgr send-bulk list.csv --resume');
      const err = summaryError(summary, c.r, { reportPath: undefined, clean });
      assert.ok(err instanceof c.type);
      assert.equal(err.exitCode, c.code);
      assert.deepEqual(err.json, { ...summary, exitCode: c.code });
      if (c.r.stopped !== undefined) assert.equal(summary.stopped, c.r.stopped);
    });
  }

  test('a failure\'s "Nothing was sent" is not carried into a run that sent other batches', () => {
    const hint = 'Check that the proxy is running and that HTTPS_PROXY names it. Nothing was sent; it is safe to run the same command again.';
    const runs = [
      result({ accepted: 7, notSent: 3, lastFailure: 'the proxy http://proxy:3128 could not open a tunnel (HTTP 502)', lastHint: hint }),
      result({ stopped: 'failing', accepted: 5, notSent: 5, lastFailure: 'the proxy refused', lastHint: hint }),
      result({ stopped: 'config', accepted: 2, notSent: 8, lastFailure: 'the proxy refused', lastHint: 'Ask the proxy admins. Nothing was sent.' }),
    ];
    for (const r of runs) {
      const err = summaryError(sentSummary(base, r, 1, 'msgr send-bulk list.csv --resume'), r, { reportPath: undefined, clean });
      assert.ok(err instanceof PartialError);
      assert.match(err.hint ?? '', /Check that the proxy is running|Ask the proxy admins/);
      assert.doesNotMatch(err.hint ?? '', /Nothing was sent|same command again/);
    }
  });

  test('a signal after every batch had its answer stopped nothing: no error, nothing said stopped', () => {
    const done = result({ stopped: 'interrupted', accepted: 10 });
    const summary = sentSummary(base, done, 1, 'x');
    assert.equal(summary.stopped, null);
    assert.equal(summaryError(summary, done, { reportPath: undefined, clean }), undefined);
    const rejected = result({ stopped: 'interrupted', accepted: 8, rejected: 2 });
    assert.ok(summaryError(sentSummary(base, rejected, 1, 'x'), rejected, { reportPath: undefined, clean }) instanceof PartialError);
  });

  test('everything accepted: no error', () => {
    const r = result({ accepted: 10 });
    assert.equal(summaryError(sentSummary(base, r, 1, 'x'), r, { reportPath: undefined, clean }), undefined);
  });

  test('the resume command is offered only when something is left to send', () => {
    const left = result({ stopped: 'interrupted', accepted: 4, notSent: 6 });
    const summary = sentSummary(base, left, 1, 'msgr send-bulk list.csv --resume');
    assert.equal(summary.resume, 'msgr send-bulk list.csv --resume');
    assert.match(summaryError(summary, left, { reportPath: undefined, clean })?.hint ?? '', /^Resume with: msgr send-bulk list.csv --resume$/);
    assert.equal(sentSummary(base, result({ accepted: 8, rejected: 2 }), 1, 'x').resume, null);
  });
});

test('a stop on a 404: the hint names the URL msgr built and the command that sends the rows once the base URL is fixed', () => {
  const r = result({ stopped: 'config', wrongAddress: 404, lastFailure: 'HTTP 404: Not Found', notSent: 10 });
  const err = summaryError(sentSummary(base, r, 1, 'msgr send-bulk list.csv --resume'), r, {
    reportPath: undefined,
    clean,
    address: { endpoint: new URL('https://api.example.com/eu/v2/messages'), baseUrl: 'https://api.example.com/eu', source: 'flag --base-url' },
    restart: 'msgr send-bulk list.csv --base-url URL --restart',
  });
  assert.equal(err?.message, 'not sent: HTTP 404: Not Found; the run stopped with 0 of 10 recipients accepted');
  assert.equal(
    err?.hint,
    "msgr sent POST https://api.example.com/eu/v2/messages, built as {base_url}/v2/messages from the base URL https://api.example.com/eu (flag --base-url), and got HTTP 404 (nothing there): the API has this one endpoint, so check the base URL (--base-url, MSGR_BASE_URL or the profile's base-url; `msgr profile show` says which is in use).\n" +
      '      Once the base URL is right, send the rows with: msgr send-bulk list.csv --base-url URL --restart (this run had none accepted, so each row is sent once)',
  );
});

test('a stop on a refused connection: the resume, and the new run should the base URL be wrong', () => {
  const r = result({ stopped: 'unreachable', lastFailure: 'cannot reach api:443: connection refused', lastHint: 'Nothing accepts connections at api:443. Nothing was sent; it is safe to run the same command again.', accepted: 6, notSent: 4 });
  const err = summaryError(sentSummary(base, r, 1, 'msgr send-bulk list.csv --resume'), r, { reportPath: undefined, clean, restart: 'msgr send-bulk list.csv --base-url URL --restart' });
  assert.equal(err?.message, 'not sent: cannot reach api:443: connection refused; the run stopped with 6 of 10 recipients accepted, none in doubt');
  assert.equal(
    err?.hint,
    'Nothing accepts connections at api:443.\n      Once the API can be reached, resume with: msgr send-bulk list.csv --resume\n      If the base URL is wrong, send the rows with the right one: msgr send-bulk list.csv --base-url URL --restart (it leaves out the rows this run accepted)',
  );
});

describe('printSummary', () => {
  test('an in-doubt batch of one recipient says "1 recipient"', () => {
    const ctx = fakeContext();
    const r = result({ accepted: 9, inDoubt: 1, inDoubtBatches: [{ batch: 7, recipients: 1, firstLine: 9, idempotencyKey: 'msgr-r1-7' }] });
    printSummary(createUi(ctx), sentSummary(base, r, 1, 'x'), r, 1);
    assert.match(ctx.err(), /in doubt: batch 7 \(1 recipient from line 9, Idempotency-Key msgr-r1-7\)/);
  });

  test('one duplicate skipped says "1 duplicate"', () => {
    const ctx = fakeContext();
    const r = result({ accepted: 7 });
    printSummary(createUi(ctx), sentSummary({ ...base, invalid: 1, duplicates: 1, excluded: 1, toSend: 7 }, r, 1, 'x'), r, 1);
    assert.match(ctx.err(), /skipped before sending: 1 invalid, 1 duplicate, 1 excluded\n/);
  });
});
