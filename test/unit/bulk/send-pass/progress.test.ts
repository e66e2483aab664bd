// Progress while sending: the spinner on a terminal, plain lines for a log.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createProgress, logLine } from '../../../../src/bulk/send-pass/progress.js';
import type { Context } from '../../../../src/context.js';
import { formatDuration } from '../../../../src/output/count.js';
import { parseEvery } from '../../../../src/commands/send-bulk/options.js';
import { UsageError } from '../../../../src/errors.js';

describe('progress', () => {
  function fakeCtx(stderr: { isTTY: boolean; columns: number }): { ctx: Context; out: () => string } {
    let text = '';
    const err = {
      ...stderr,
      write(chunk: string): boolean {
        text += chunk;
        return true;
      },
      // ora asks a TTY stream for these.
      on: () => err,
      once: () => err,
      removeListener: () => err,
      cursorTo: () => true,
      moveCursor: () => true,
      clearLine: () => true,
    };
    const ctx = { env: {}, stderr: err, stdout: err } as unknown as Context;
    return { ctx, out: () => text };
  }

  test('a terminal that reports 0 columns gets no spinner at all', { timeout: 5000 }, async () => {
    const { ctx, out } = fakeCtx({ isTTY: true, columns: 0 });
    const p = await createProgress(ctx, { quiet: false, verbose: false });
    for (let i = 0; i < 50; i++) p.update({ done: i, total: 50, failed: 0, inFlight: 1 });
    p.stop();
    assert.equal(out(), '');
  });

  test('without a terminal nothing is written until the summary, even with --verbose at first', async () => {
    const { ctx, out } = fakeCtx({ isTTY: false, columns: 0 });
    const p = await createProgress(ctx, { quiet: false, verbose: true });
    p.update({ done: 5, total: 10, failed: 0, inFlight: 1 });
    p.stop();
    assert.equal(out(), '');
  });

  test('durations for the ETA', () => {
    assert.equal(formatDuration(5), '0:05');
    assert.equal(formatDuration(125), '2:05');
    assert.equal(formatDuration(3725), '1:02:05');
  });
});

describe('--progress-every', () => {
  test('seconds, minutes or hours, from 1 s to 24 h', () => {
    assert.equal(parseEvery(undefined), undefined);
    assert.equal(parseEvery('30s'), 30_000);
    assert.equal(parseEvery('1.5m'), 90_000);
    assert.equal(parseEvery('2h'), 7_200_000);
    assert.equal(parseEvery(' 1S '), 1_000);
    for (const bad of ['10', '0.5s', '25h', 's', '1d', '-1s', '']) assert.throws(() => parseEvery(bad), (e: unknown) => e instanceof UsageError && e.message.startsWith('--progress-every:'), bad);
  });

  test('one line with every figure named', () => {
    assert.equal(logLine({ done: 1_250, total: 5_000, failed: 50, inFlight: 4 }, 2.5), 'progress: 1,200 accepted, 50 failed, 4 in flight, 3,750 left, 500/s, ETA 0:08');
    // An earlier run's rows are not this run's speed.
    assert.equal(logLine({ done: 3_000, total: 5_000, failed: 0, inFlight: 0, earlier: 3_000 }, 1), 'progress: 3,000 accepted, 0 failed, 0 in flight, 2,000 left, 0/s, ETA unknown');
    assert.equal(logLine({ done: 10, total: 10, failed: 0, inFlight: 0, note: 'paused 0:05 (429)' }, 1), 'progress: 10 accepted, 0 failed, 0 in flight, 0 left, 10/s, ETA 0:00, paused 0:05 (429)');
  });
});
