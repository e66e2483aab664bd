// --rate, the gate that pauses every worker on a 429, and the window that halves and grows back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Gate, RateLimiter, Window } from '../../../../src/bulk/send-pass/limiter.js';
import { parseRate } from '../../../../src/bulk/campaign.js';

describe('rates and throttling', () => {
  test('parses N/s, N/m, N/h and refuses the rest', () => {
    assert.equal(parseRate('100/s')?.perMs, 0.1);
    assert.equal(parseRate('6000/m')?.perMs, 0.1);
    assert.equal(parseRate('360000/h')?.perMs, 0.1);
    assert.equal(parseRate('5 / min')?.perMs, 5 / 60_000);
    for (const bad of ['100', '0/s', '-1/s', 'x/s', '10/d']) assert.equal(parseRate(bad), undefined, bad);
  });

  test('the limiter spaces batches evenly and is exact over a minute', async () => {
    let now = 0;
    const starts: number[] = [];
    const limiter = new RateLimiter(parseRate('600/m') ?? assert.fail(), () => now, (ms) => {
      now += ms;
      return Promise.resolve();
    });
    for (let i = 0; i < 61; i++) {
      await limiter.take(10);
      starts.push(now);
    }
    // 10 recipients at 10/s: one batch a second; batch 60 starts at exactly 60 s.
    assert.deepEqual(starts.slice(0, 4), [0, 1000, 2000, 3000]);
    assert.equal(starts[60], 60_000);
  });

  test('after a pause the limiter does not burst', async () => {
    let now = 0;
    const limiter = new RateLimiter(parseRate('10/s') ?? assert.fail(), () => now, (ms) => {
      now += ms;
      return Promise.resolve();
    });
    await limiter.take(10);
    now += 10_000; // a long 429 pause
    await limiter.take(10);
    const before = now;
    await limiter.take(10);
    assert.equal(now - before, 1000);
  });

  test('the gate holds every waiter until the pause ends', async () => {
    let now = 0;
    const gate = new Gate(() => now, (ms) => {
      now += ms;
      return Promise.resolve();
    });
    gate.pauseFor(2500);
    await gate.wait();
    assert.equal(now, 2500);
  });

  test('the window halves on throttling and grows back one step at a time', async () => {
    const w = new Window(8);
    w.throttled();
    assert.equal(w.limit, 4);
    w.throttled();
    w.throttled();
    w.throttled();
    assert.equal(w.limit, 1);
    w.succeeded();
    assert.equal(w.limit, 1);
    w.succeeded();
    assert.equal(w.limit, 2);
    assert.equal(await w.acquire(), true);
    assert.equal(await w.acquire(), true);
    let third = false;
    const p = w.acquire().then(() => (third = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(third, false);
    w.release();
    await p;
    assert.equal(third, true);
  });
});

describe('rate over time', () => {
  test('timers that fire late do not make the rate sag', async () => {
    let now = 0;
    const limiter = new RateLimiter(parseRate('500/s') ?? assert.fail(), () => now, (ms) => {
      now += ms + 1.5; // every timer 1.5 ms late
      return Promise.resolve();
    });
    let sent = 0;
    for (;;) {
      await limiter.take(10);
      if (now >= 20_000) break;
      sent += 10;
    }
    // 500/s for 20 s: 10,000, not the ~9,300 a schedule shifted by every delay would give.
    assert.ok(Math.abs(sent - 10_000) <= 10, String(sent));
  });
});
