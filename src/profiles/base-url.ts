// Checks a base URL before it is saved in a profile, by the same rules the sender applies
// (cli-contract: Security): https, or plain http only to a loopback host. Kept apart from
// http/client.ts so that `msgr profile` does not load undici.
import { UsageError } from '../errors.js';

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

export function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127(\.\d{1,3}){3}$/.test(h) || h.endsWith('.localhost');
}

/** Returns the URL as it will be saved (no trailing slash), or throws naming the flag. */
export function checkBaseUrl(input: string, flag = '--base-url'): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new UsageError(`${flag}: "${input}" is not a URL`, { hint: 'Give the regional base URL, for example https://api.example.com' });
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new UsageError(`${flag}: refusing plain http to ${url.hostname}: the API key would travel unencrypted`, {
      hint: 'Use https://; plain http is allowed only for loopback hosts (localhost, 127.0.0.1, ::1).',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${flag}: "${input}" must start with https://`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${flag}: credentials in the URL are not supported`, { hint: 'Remove user:password@ from the URL; the API key is sent in X-Api-Key.' });
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(`${flag}: "${input}" has a query or fragment; give the base URL only`);
  }
  return url.toString().replace(/\/+$/, '');
}
