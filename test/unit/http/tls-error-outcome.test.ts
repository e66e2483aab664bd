// roundTrip's errors say whether undici had started the request on a connected socket, and the
// classification follows: before it, a TLS failure is a handshake that failed (never sent); after
// it, no error proves the request never left (outcome unknown). A dispatcher that calls the
// handler as undici's client does (onRequestStart as it writes the request, then the error).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Dispatcher } from 'undici';
import { classifyNetworkError } from '../../../src/http/outcome.js';
import { AfterRequestStart, roundTrip } from '../../../src/http/undici.js';

const tlsError = (): Error => Object.assign(new Error('decryption failed or bad record mac'), { code: 'ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC' });

function failing(started: boolean): Dispatcher {
  const controller = { abort: () => undefined, pause: () => undefined, resume: () => undefined, paused: false, aborted: false, reason: null, rawHeaders: [] };
  return {
    dispatch(_opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      queueMicrotask(() => {
        if (started) handler.onRequestStart?.(controller, {});
        handler.onResponseError?.(controller, tlsError());
      });
      return true;
    },
  } as unknown as Dispatcher;
}

test('a TLS error before undici started the request is the handshake: never sent', async () => {
  const err = await roundTrip(failing(false), new URL('https://api.example.com/v2/messages'), { method: 'POST', headers: {}, body: '{}', limit: 0 }).then(
    () => assert.fail('resolved'),
    (e: unknown) => e,
  );
  assert.ok(!(err instanceof AfterRequestStart));
  assert.equal(classifyNetworkError(err).kind, 'not-sent');
});

test('a TLS error once undici had started the request: outcome unknown, the error kept as its cause', async () => {
  const err = await roundTrip(failing(true), new URL('https://api.example.com/v2/messages'), { method: 'POST', headers: {}, body: '{}', limit: 0 }).then(
    () => assert.fail('resolved'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof AfterRequestStart);
  assert.equal((err.cause as { code: string }).code, 'ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC');
  assert.deepEqual(classifyNetworkError(err.cause, true), { kind: 'unknown', code: 'ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC' });
  assert.equal(classifyNetworkError(err.cause).kind, 'not-sent', 'the code alone reads as a failed handshake');
});
