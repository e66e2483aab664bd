// What each signal does to a command, as main.ts decides it: quit, start a graceful stop, or quit
// at once on a second Ctrl-C.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SAME_SIGNAL_MS, signalAction } from '../../src/main.js';

describe('signalAction', () => {
  const idle = { graceful: false, stoppingSince: undefined };
  const ready = { graceful: true, stoppingSince: undefined };
  const stopping = { graceful: true, stoppingSince: 1_000 };

  test('a command with nothing to wind down quits on any signal', () => {
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) assert.equal(signalAction(sig, idle, 0), 'quit');
  });

  test('the first SIGINT, SIGTERM or SIGHUP starts the stop', () => {
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) assert.equal(signalAction(sig, ready, 0), 'stop');
  });

  test('SIGTERM and SIGHUP never escalate, however late or often', () => {
    for (const at of [1_000, 1_010, 60_000]) {
      assert.equal(signalAction('SIGTERM', stopping, at), 'ignore');
      assert.equal(signalAction('SIGHUP', stopping, at), 'ignore');
    }
  });

  test('a second Ctrl-C quits at once; the first one delivered twice does not', () => {
    assert.equal(signalAction('SIGINT', stopping, 1_000 + SAME_SIGNAL_MS + 1), 'quit');
    assert.equal(signalAction('SIGINT', stopping, 1_000 + 5), 'ignore');
  });
});

