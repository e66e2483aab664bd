// Where requests go, and the rule that keeps the key off plain http (docs/contract.md: "Security").
// Kept apart from client.ts so that checking a URL (dry runs, profiles) does not load undici.
import { UsageError } from '../errors.js';
import { maskUrl } from '../output/sanitize.js';

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
  const { url, prefix } = checkedBase(baseUrl, flagName);
  url.pathname = `${prefix}/v2/messages`;
  return url;
}

/**
 * `{base_url}{path}` for `msgr api`: the path (with its query, if any) is resolved under the base
 * URL, never to another host, so the key goes only where the base URL says.
 */
export function apiUrl(baseUrl: string, path: string, flagName = '--base-url'): URL {
  if (!path.startsWith('/') || path.startsWith('//')) {
    throw new UsageError(`"${path}" is not a path: give one that starts with /, such as /v2/messages`, {
      hint: 'msgr api sends to the base URL of the profile (or --base-url); a full URL would send the key elsewhere.',
    });
  }
  const { url, prefix } = checkedBase(baseUrl, flagName);
  const q = path.indexOf('?');
  url.pathname = `${prefix}${q < 0 ? path : path.slice(0, q)}`;
  if (q >= 0) url.search = path.slice(q);
  return url;
}

/** The base URL checked, and its path without a trailing slash. */
function checkedBase(baseUrl: string, flagName: string): { url: URL; prefix: string } {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new UsageError(`${flagName}: "${maskUrl(baseUrl)}" is not a URL`, { hint: 'Give the regional base URL, for example https://api.example.com' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${flagName}: "${maskUrl(baseUrl)}" must start with https://`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`${flagName}: refusing to send the API key over plain http to ${url.hostname}`, {
      hint: 'Use https://; plain http is allowed only for loopback hosts (localhost, 127.0.0.1, ::1).',
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${flagName}: credentials in the URL are not supported`, { hint: 'Remove user:password@ from the URL; the API key is sent in X-Api-Key.' });
  }
  const versioned = versionInBase(baseUrl);
  if (versioned !== undefined) throw versionInBaseError(flagName, baseUrl, versioned);
  const prefix = url.pathname.replace(/\/+$/, '');
  url.search = '';
  url.hash = '';
  return { url, prefix };
}

/** `/v2`, `/v2/messages` (and a trailing slash) at the end of a base URL's path. */
const VERSION_AT_END = /\/v2(?:\/messages)?\/*$/i;

/** A base URL that already ends in what msgr appends to it (see versionInBase). */
export interface VersionedBase {
  /** What it ends in: `/v2`, `/v2/messages`. */
  readonly suffix: string;
  /** The base URL without it, as it should be given. */
  readonly fixed: string;
  /** The URL msgr would have posted to: `…/v2/v2/messages`. */
  readonly built: string;
}

/**
 * A base URL ending in `/v2` or `/v2/messages`: msgr appends `/v2/messages` itself
 * (docs/api.md: "Endpoint"), so it would post to `/v2/v2/messages`, where no API answers but with
 * a 404. Refused rather than corrected with a notice: the value sits in a profile, a variable or
 * a cron line, and is best fixed once where it is written (docs/contract.md: "Exit codes"). Undefined for
 * any other base URL (or one that is no URL).
 */
export function versionInBase(baseUrl: string): VersionedBase | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return undefined;
  }
  const found = VERSION_AT_END.exec(url.pathname);
  if (found === null) return undefined;
  url.search = '';
  url.hash = '';
  const path = url.pathname;
  url.pathname = `${path.replace(/\/+$/, '')}/v2/messages`;
  const built = url.toString();
  url.pathname = path.slice(0, found.index);
  return { suffix: found[0].replace(/\/+$/, ''), fixed: url.toString().replace(/\/+$/, ''), built };
}

/** The refusal of such a base URL; `fix`: the command that sets it right where it was given. */
export function versionInBaseError(flagName: string, given: string, v: VersionedBase, fix?: string): UsageError {
  return new UsageError(`${flagName}: the base URL ${maskUrl(given.trim())} ends in ${v.suffix}, which msgr appends itself: it would post to ${maskUrl(v.built)}`, {
    hint: fix ?? `Give the base URL without ${v.suffix}: ${maskUrl(v.fixed)}`,
  });
}

/** The User-Agent of every request msgr makes: its version and Node's. */
export function userAgent(ctx: { readonly version: string; readonly nodeVersion: string }): string {
  return `msgr/${ctx.version} node/v${ctx.nodeVersion}`;
}

/** The base URL as msgr calls it, without the messages path it appends. */
export function baseUrlOf(endpoint: URL): string {
  return endpoint.toString().replace(/\/v2\/messages\/?$/, '');
}
