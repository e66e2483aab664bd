// Proxy settings from the environment, read as curl and gh read them (http/proxy.ts), and how a
// refused tunnel is classified (http/outcome.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MsgrError } from '../../../src/errors.js';
import { classifyNetworkError, classifyTunnelFailure } from '../../../src/http/outcome.js';
import { describeTunnelFailure, noProxyMatch, parseProxyUrl, routeFor, TunnelError } from '../../../src/http/proxy.js';
import { hasSystemCaSwitch, trustHint } from '../../../src/http/trust.js';

test('a proxy URL: credentials percent-decoded into Basic, shown masked, origin without them', () => {
  const p = parseProxyUrl('http://ops%40corp:p%40ss%3Aw%25rd@proxy.corp:3128', 'HTTPS_PROXY');
  assert.equal(p.user, 'ops@corp');
  assert.equal(p.authorization, `Basic ${Buffer.from('ops@corp:p@ss:w%rd').toString('base64')}`);
  assert.equal(p.origin, 'http://proxy.corp:3128');
  assert.equal(p.shown, 'http://ops%40corp:***@proxy.corp:3128');
  assert.equal(p.variable, 'HTTPS_PROXY');
});

test('a proxy URL without a scheme is http; without a port, 80 (443 for https)', () => {
  assert.equal(parseProxyUrl('proxy.corp:8080', 'http_proxy').origin, 'http://proxy.corp:8080');
  assert.equal(parseProxyUrl('http://proxy.corp', 'HTTP_PROXY').origin, 'http://proxy.corp:80');
  assert.equal(parseProxyUrl('https://[::1]', 'HTTPS_PROXY').origin, 'https://[::1]:443');
  assert.equal(parseProxyUrl('http://proxy.corp:3128', 'HTTP_PROXY').authorization, undefined);
});

test('a broken proxy URL is a usage error that never repeats the value', () => {
  const attempts = ['http://ops:50%zzsecret@proxy:3128', 'socks5://ops:secret@proxy:1080', 'http://ops:sec ret@:3128'];
  for (const value of attempts) {
    assert.throws(() => parseProxyUrl(value, 'HTTPS_PROXY'), (err: unknown) => {
      assert.ok(err instanceof MsgrError && err.exitCode === 2, String(err));
      assert.match(err.message, /^HTTPS_PROXY: /);
      assert.ok(!err.message.includes('secret') && !(err.hint ?? '').includes('secret'), err.message);
      return true;
    });
  }
});

test('NO_PROXY: names, .suffixes, *.suffixes, *, IPs, CIDR, host:port, [v6]:port; upper case first', () => {
  const m = (value: string, host: string, port = 443, name = 'NO_PROXY'): string | undefined => noProxyMatch({ [name]: value }, host, port)?.entry;
  assert.equal(m('example.com', 'example.com'), 'example.com');
  assert.equal(m('example.com', 'api.example.com'), 'example.com');
  assert.equal(m('example.com', 'badexample.com'), undefined);
  assert.equal(m('.example.com', 'api.example.com'), '.example.com');
  assert.equal(m('.example.com', 'example.com'), '.example.com');
  assert.equal(m('*.example.com', 'a.b.example.com'), '*.example.com');
  assert.equal(m('EXAMPLE.com', 'Api.Example.COM'), 'EXAMPLE.com');
  assert.equal(m('other.org, *', 'anything'), '*');
  assert.equal(m('10.1.2.3', '10.1.2.3'), '10.1.2.3');
  assert.equal(m('10.1.2.3', '10.1.2.4'), undefined);
  assert.equal(m('10.0.0.0/8', '10.200.1.1'), '10.0.0.0/8');
  assert.equal(m('10.0.0.0/8', '11.0.0.1'), undefined);
  assert.equal(m('.0.0.1', '127.0.0.1'), undefined);
  assert.equal(m('api.example.com:8443', 'api.example.com', 8443), 'api.example.com:8443');
  assert.equal(m('api.example.com:8443', 'api.example.com', 443), undefined);
  assert.equal(m('[::1]:8443', '[::1]', 8443), '[::1]:8443');
  assert.equal(m('::1', '[::1]'), '::1');
  assert.equal(m('a.org  b.org,,c.org', 'b.org'), 'b.org');
  assert.equal(m('example.com', 'example.com', 443, 'no_proxy'), 'example.com');
  assert.equal(noProxyMatch({ NO_PROXY: 'a.org', no_proxy: 'b.org' }, 'b.org', 443), undefined);
  assert.equal(noProxyMatch({ NO_PROXY: '', no_proxy: 'b.org' }, 'b.org', 443)?.variable, 'no_proxy');
});

test('routeFor: HTTPS_PROXY for https (HTTP_PROXY as a fallback), HTTP_PROXY only for http; the reason for none', () => {
  const https = new URL('https://api.example.com/v2/messages');
  const http = new URL('http://127.0.0.1:4010/v2/messages');
  const r1 = routeFor(https, { https_proxy: 'http://p:1', HTTP_PROXY: 'http://q:2' });
  assert.ok(r1.kind === 'proxy' && r1.proxy.variable === 'https_proxy');
  const r2 = routeFor(https, { HTTP_PROXY: 'http://q:2' });
  assert.ok(r2.kind === 'proxy' && r2.proxy.variable === 'HTTP_PROXY');
  assert.equal(routeFor(http, { HTTPS_PROXY: 'http://p:1' }).kind, 'direct');
  const r3 = routeFor(https, { HTTPS_PROXY: 'http://ops:pw@p:1', no_proxy: '.example.com' });
  assert.ok(r3.kind === 'direct');
  assert.equal(r3.reason, 'no proxy: no_proxy entry ".example.com" matches api.example.com (HTTPS_PROXY is http://ops:***@p:1)');
  const r5 = routeFor(https, { HTTPS_PROXY: 'socks5://ops:pw@p:1', NO_PROXY: 'example.com' });
  assert.ok(r5.kind === 'direct' && /HTTPS_PROXY: msgr goes through http/.test(r5.reason) && !r5.reason.includes('pw'), r5.kind === 'direct' ? r5.reason : '');
  assert.throws(() => routeFor(https, { HTTPS_PROXY: 'socks5://ops:pw@p:1' }), /HTTPS_PROXY/);
  const r4 = routeFor(https, {});
  assert.ok(r4.kind === 'direct' && /HTTPS_PROXY, https_proxy, HTTP_PROXY, http_proxy not set/.test(r4.reason));
});

test('a refused tunnel is never sent: 4xx need a fix (exit 2), 5xx and no answer are retried (exit 5), a proxy host that does not exist is not', () => {
  assert.deepEqual(classifyTunnelFailure({ status: 407 }), { retryable: false, config: true });
  assert.deepEqual(classifyTunnelFailure({ status: 401 }), { retryable: false, config: true });
  assert.deepEqual(classifyTunnelFailure({ status: 403 }), { retryable: false, config: true });
  for (const status of [500, 502, 503, 504]) assert.deepEqual(classifyTunnelFailure({ status }), { retryable: true, config: false });
  for (const cause of ['ECONNREFUSED', 'EAI_AGAIN', 'TIMEOUT', 'CLOSED']) assert.deepEqual(classifyTunnelFailure({ cause }), { retryable: true, config: false });
  for (const cause of ['ENOTFOUND', 'EAI_NONAME']) assert.deepEqual(classifyTunnelFailure({ cause }), { retryable: false, config: false });
  const proxy = parseProxyUrl('http://ops:pw@proxy:3128', 'HTTPS_PROXY');
  const err = new TunnelError({ proxy, target: 'api:443', status: 407, statusText: 'Proxy Authentication Required' });
  const cls = classifyNetworkError(err);
  assert.deepEqual(cls, { kind: 'not-sent', unreachable: false, retryable: false, config: true, code: 'MSGR_PROXY_TUNNEL' });
  // A wrapper (undici may wrap connect errors) does not hide it.
  assert.equal(classifyNetworkError({ code: 'UND_ERR_ABORTED', cause: err }).kind, 'not-sent');
  const text = describeTunnelFailure(err.failure);
  assert.equal(text.message, 'the proxy http://proxy:3128 (from HTTPS_PROXY) refused the credentials of user "ops" (HTTP 407 Proxy Authentication Required)');
  assert.ok(!text.message.includes('pw') && !text.hint.includes(':pw'));
});

test('the TLS hint offers NODE_USE_SYSTEM_CA only where Node has it', () => {
  for (const v of ['22.19.0', '24.6.0', '24.11.1', '26.10.0', 'v25.0.0']) assert.equal(hasSystemCaSwitch(v), true, v);
  for (const v of ['20.20.2', '22.18.0', '23.11.0', '24.5.0']) assert.equal(hasSystemCaSwitch(v), false, v);
  assert.match(trustHint('26.10.0'), /--ca-file.*profile set NAME ca-file.*MSGR_CA_FILE.*NODE_USE_SYSTEM_CA=1/);
  assert.doesNotMatch(trustHint('20.20.2'), /NODE_USE_SYSTEM_CA/);
  assert.match(trustHint('20.20.2'), /--ca-file.*profile set NAME ca-file/);
});
