import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBody } from '../../../src/http/client.js';
import { apiUrl, isLoopbackHost, messagesEndpoint, versionInBase } from '../../../src/http/endpoint.js';
import { backoffMs, classifyNetworkError, classifyStatus, isWrongAddress, parseRetryAfter, serverMessage } from '../../../src/http/outcome.js';
import { maskSecret, redact, redactJson } from '../../../src/output/sanitize.js';

describe('failure classification', () => {
  test('statuses map to the contract classes', () => {
    const expected: Array<[number, string]> = [
      [200, 'accepted'], [201, 'accepted'], [202, 'accepted'], [204, 'accepted'],
      [401, 'auth'], [403, 'auth'], [400, 'rejected'], [404, 'rejected'], [409, 'rejected'], [422, 'rejected'], [301, 'rejected'],
      [429, 'throttled'], [503, 'unavailable'], [500, 'unknown'], [502, 'unknown'], [504, 'unknown'],
    ];
    for (const [status, cls] of expected) assert.equal(classifyStatus(status), cls, String(status));
    // Of the rejected, 404 and 405 say the address is wrong, not the message.
    assert.deepEqual([301, 400, 404, 405, 409, 422].filter(isWrongAddress), [404, 405]);
  });
  test('network errors: never sent vs outcome unknown', () => {
    const e = (code: string, cause?: unknown): Error => Object.assign(new Error(code), { code, ...(cause !== undefined ? { cause } : {}) });
    // A connection never made: retried, except a host name that does not exist.
    for (const code of ['ECONNREFUSED', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']) {
      assert.deepEqual(classifyNetworkError(e(code)), { kind: 'not-sent', retryable: true, unreachable: true, code });
    }
    for (const code of ['ENOTFOUND', 'EAI_NONAME', 'EADDRNOTAVAIL']) {
      assert.deepEqual(classifyNetworkError(e(code)), { kind: 'not-sent', retryable: false, unreachable: true, code });
    }
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID']) {
      assert.deepEqual(classifyNetworkError(e(code)), { kind: 'not-sent', retryable: false, unreachable: false, code });
    }
    for (const code of ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'SOMETHING_NEW']) {
      assert.equal(classifyNetworkError(e(code)).kind, 'unknown', code);
    }
    // undici refuses an invalid request (a bad header) before anything is sent.
    assert.deepEqual(classifyNetworkError(e('UND_ERR_INVALID_ARG')), { kind: 'not-sent', retryable: false, unreachable: false, code: 'UND_ERR_INVALID_ARG' });
    // A wrapper must not hide a cause that proves the request never left.
    assert.equal(classifyNetworkError(e('UND_ERR', e('ECONNREFUSED'))).kind, 'not-sent');
    assert.equal(classifyNetworkError(new Error('no code')).kind, 'unknown');
  });
  test('Retry-After: seconds or an HTTP date', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    assert.equal(parseRetryAfter('3', now), 3000);
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 12:00:10 GMT', now), 10_000);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });
  test('backoff grows exponentially with jitter and is capped', () => {
    assert.equal(backoffMs(1, 500, 20_000, () => 0), 250);
    assert.equal(backoffMs(1, 500, 20_000, () => 1), 500);
    assert.equal(backoffMs(3, 500, 20_000, () => 1), 2000);
    assert.equal(backoffMs(20, 500, 20_000, () => 1), 20_000);
  });
  test('server messages from problem+json, other JSON shapes and text', () => {
    assert.equal(serverMessage({ title: 'Invalid', detail: 'from is missing' }, ''), 'Invalid — from is missing');
    assert.equal(serverMessage({ error: { message: 'nope' } }, ''), 'nope');
    assert.equal(serverMessage({ message: 'slow down' }, ''), 'slow down');
    assert.equal(serverMessage({ errors: [{ field: 'to', message: 'bad' }, 'plain'] }, ''), 'to: bad — plain');
    assert.equal(serverMessage(undefined, '  oops \n'), 'oops');
    assert.equal(serverMessage(undefined, ''), '(no message)');
    assert.equal(serverMessage(undefined, 'x'.repeat(600)).length, 501);
  });
  test('bodies: JSON when it parses, else undefined', () => {
    assert.deepEqual(parseBody('{"a":1}'), { a: 1 });
    assert.equal(parseBody(''), undefined);
    assert.equal(parseBody('<html>'), undefined);
    assert.equal(parseBody('{broken'), undefined);
  });
});

describe('endpoint and security rules', () => {
  test('/v2/messages is appended once', () => {
    assert.equal(messagesEndpoint('https://api.example.com').toString(), 'https://api.example.com/v2/messages');
    assert.equal(messagesEndpoint('https://api.example.com/eu/').toString(), 'https://api.example.com/eu/v2/messages');
    assert.equal(messagesEndpoint('https://api.example.com/v2eu').toString(), 'https://api.example.com/v2eu/v2/messages');
  });
  test('a base URL that ends in what msgr appends is refused, naming the URL without it', () => {
    const cases: Array<[string, string, string]> = [
      ['https://api.example.com/v2', '/v2', 'https://api.example.com'],
      ['https://api.example.com/v2/', '/v2', 'https://api.example.com'],
      ['https://api.example.com/eu/v2/messages', '/v2/messages', 'https://api.example.com/eu'],
      ['https://api.example.com/eu/V2/Messages/?x=1', '/V2/Messages', 'https://api.example.com/eu'],
      ['http://127.0.0.1:4010/v2', '/v2', 'http://127.0.0.1:4010'],
    ];
    for (const [given, suffix, fixed] of cases) {
      assert.deepEqual(versionInBase(given), { suffix, fixed, built: `${given.replace(/\?.*$/, '').replace(/\/+$/, '')}/v2/messages` }, given);
      assert.throws(() => messagesEndpoint(given, '--base-url'), (err: Error & { hint?: string }) => err.message.startsWith(`--base-url: the base URL ${given} ends in ${suffix}, which msgr appends itself`) && err.hint === `Give the base URL without ${suffix}: ${fixed}`, given);
      assert.throws(() => apiUrl(given, '/v2/messages'), /which msgr appends itself/);
      // The URL offered is one msgr then takes.
      assert.equal(messagesEndpoint(fixed).toString(), `${fixed}/v2/messages`);
    }
    for (const fine of ['https://api.example.com', 'https://api.example.com/v2x', 'https://api.example.com/v22', 'https://v2.example.com', 'https://api.example.com/v2/eu']) assert.equal(versionInBase(fine), undefined, fine);
  });
  test('plain http only to loopback', () => {
    assert.equal(messagesEndpoint('http://127.0.0.1:4010').toString(), 'http://127.0.0.1:4010/v2/messages');
    assert.equal(messagesEndpoint('http://localhost:4010').host, 'localhost:4010');
    assert.equal(messagesEndpoint('http://[::1]:4010').hostname, '[::1]');
    assert.throws(() => messagesEndpoint('http://api.example.com'), /plain http/);
    assert.throws(() => messagesEndpoint('http://127.0.0.1.example.com'), /plain http/);
    assert.throws(() => messagesEndpoint('ftp://x'), /must start with https/);
    assert.throws(() => messagesEndpoint('not a url'), /not a URL/);
    assert.throws(() => messagesEndpoint('https://u:p@api.example.com'), /credentials/);
  });
  test('loopback hosts', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]']) assert.ok(isLoopbackHost(h), h);
    for (const h of ['10.0.0.1', 'example.com', '128.0.0.1', 'api.localhost']) assert.ok(!isLoopbackHost(h), h);
  });
});

describe('output hygiene', () => {
  test('secrets are masked to their last 4 characters', () => {
    assert.equal(maskSecret('sk_live_1234567890'), '****7890');
    assert.equal(maskSecret('abc'), '****');
    assert.equal(redact('key sk_live_1234567890 seen twice sk_live_1234567890', 'sk_live_1234567890'), 'key ****7890 seen twice ****7890');
    // A long key is masked even inside a longer run of characters.
    assert.equal(redact('tokensk_live_1234567890x', 'sk_live_1234567890'), 'token****7890x');
  });
  test('a short key is masked where a server could echo it, never inside ordinary words', () => {
    assert.equal(redact('{"status":"accepted","key":"acce"}', 'acce'), '{"status":"accepted","key":"****"}');
    assert.equal(redact('unknown key acce; try again', 'acce'), 'unknown key ****; try again');
    assert.equal(redact('fallback to SMS', 'k'), 'fallback to SMS');
    assert.equal(redact('k', 'k'), '****');
    assert.equal(redact('key=abcd1234&x=abcd1234', 'abcd1234'), 'key=****1234&x=****1234');
    assert.deepEqual(redactJson({ status: 'accepted', echo: 'acce' }, 'acce'), { status: 'accepted', echo: '****' });
    // Overlapping occurrences of a short key stay masked.
    assert.equal(redact('aa-aaa', 'aa'), '****-aaa');
  });
});
