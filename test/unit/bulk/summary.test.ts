// The error a bulk run ends with: its --json document is the summary with the error's own exit code.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AuthError, ExitCode, InterruptedError, PartialError } from '../../../src/errors.js';
import type { SendResult } from '../../../src/bulk/accounting.js';
import { buildResumeCommand, printSummary, sentSummary, summaryError, type Summary } from '../../../src/bulk/summary.js';
import { createUi } from '../../../src/output/ui.js';
import { fakeContext } from '../../support/fake-context.js';

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
  return { accepted: 0, acceptedEarlier: 0, rejected: 0, inDoubt: 0, notSent: 0, inDoubtBatches: [], stopped: undefined, throttled: 0, ...r };
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

test('buildResumeCommand repeats what the journal does not keep, quoted for a shell', () => {
  const flags = { file: 'my list.csv', sandbox: false, concurrency: 8, yes: true, profile: 'prod', report: 'out.csv', rate: { perMs: 0.1, text: '100/s' } };
  assert.equal(buildResumeCommand(flags, '/data/my list.csv', false, '/state/j.jsonl'), "msgr send-bulk 'my list.csv' --resume -p prod --concurrency 8 --rate 100/s --report out.csv --yes");
  assert.equal(buildResumeCommand({ file: '-', sandbox: true, concurrency: 4, yes: false }, undefined, true, '/state/j.jsonl'), 'msgr send-bulk --resume --journal /state/j.jsonl --sandbox');
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
