// Where requests go, and the rule that keeps the key off plain http (docs/contract.md: "Security").
// Kept apart from client.ts so that checking a URL (dry runs, profiles) does not load undici.
import { UsageError } from '../errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '::1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return LOOPBACK_HOSTS.has(h) || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * `{base_url}/v2/messages` from a base URL. The key travels only over HTTPS; plain http is
 * allowed only to a loopback host (docs/contract.md: "Security").
 */
export function messagesEndpoint(baseUrl: string, flagName = '--base-url'): URL {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new UsageError(`${flagName}: "${baseUrl}" is not a URL`, { hint: 'Give the regional base URL, for example https://api.example.com' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${flagName}: "${baseUrl}" must start with https://`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`${flagName}: refusing to send the API key over plain http to ${url.hostname}`, {
      hint: 'Use https://; plain http is allowed only for loopback hosts (localhost, 127.0.0.1, ::1).',
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${flagName}: credentials in the URL are not supported`, { hint: 'Remove user:password@ from the URL; the API key is sent in X-Api-Key.' });
  }
  // Be kind to a pasted full endpoint URL rather than posting to /v2/messages/v2/messages.
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/v2/messages') ? path : `${path}/v2/messages`;
  url.search = '';
  url.hash = '';
  return url;
}

/** The User-Agent of every request msgr makes: its version and Node's. */
export function userAgent(ctx: { readonly version: string; readonly nodeVersion: string }): string {
  return `msgr/${ctx.version} node/v${ctx.nodeVersion}`;
}
