// Which proxy a request goes through, read from the environment the way curl and gh read it
// (docs/network.md). Pure: no undici here, so checking a
// route before a bulk run writes its journal costs nothing at start-up.
import { BlockList, isIP } from 'node:net';
import { UsageError } from '../errors.js';
import { maskUrl } from '../output/sanitize.js';
import { TUNNEL_CODE } from './outcome.js';
import { isTlsCode, tlsFailureOf, tlsHint } from './trust.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface ProxyConfig {
  /** The variable the proxy came from: HTTPS_PROXY, https_proxy, HTTP_PROXY or http_proxy. */
  readonly variable: string;
  readonly protocol: 'http:' | 'https:';
  /** Host name or IP address, without IPv6 brackets. */
  readonly hostname: string;
  readonly port: number;
  /** The percent-decoded user name, if the URL has one (not a secret; the password is). */
  readonly user: string | undefined;
  /** `Basic …` for Proxy-Authorization; never shown. */
  readonly authorization: string | undefined;
  /** `http://host:port`: how errors name the proxy. */
  readonly origin: string;
  /** `http://ops:***@host:port`: how the proxy is shown where its user matters. */
  readonly shown: string;
}

export type Route =
  | { readonly kind: 'proxy'; readonly proxy: ProxyConfig }
  | { readonly kind: 'direct'; readonly reason: string; readonly noProxyEntry?: string; readonly noProxyVariable?: string };

const HTTPS_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;
const HTTP_VARIABLES = ['HTTP_PROXY', 'http_proxy'] as const;
const NO_PROXY_VARIABLES = ['NO_PROXY', 'no_proxy'] as const;

function firstSet(env: Env, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

const bracket = (hostname: string): string => (hostname.includes(':') ? `[${hostname}]` : hostname);

/**
 * Parses a proxy URL from `variable`. The user and password are percent-decoded (a password
 * holding `@`, `:` or `%` is written %40, %3A, %25). Errors never repeat the value: it may hold
 * the password.
 */
export function parseProxyUrl(value: string, variable: string): ProxyConfig {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  const form = 'http://[USER:PASSWORD@]HOST:PORT';
  if (/^["']|["']$/.test(value)) {
    // A .env file or `docker run --env-file` keeps the quotes of HTTPS_PROXY="…" in the value.
    throw new UsageError(`${variable}: the proxy URL is in quotes (its value is not shown: it may hold a password)`, {
      hint: `Remove the quotes (a .env file or docker --env-file keeps VAR="…" quotes as part of the value); write it as ${form}.`,
    });
  }
  const notAProxyUrl = (): UsageError =>
    new UsageError(`${variable}: not a proxy URL (its value is not shown: it may hold a password)`, {
      hint: `Write it as ${form}, with any @ : % / # ? in the user or password percent-encoded (@ is %40, : is %3A, % is %25).`,
    });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw notAProxyUrl();
  }
  // An `@` after the host: the user or password held a `/`, `?` or `#` not percent-encoded, so
  // what was read as the host and port is part of them; it must be neither shown nor dialled.
  if (`${url.pathname}${url.search}${url.hash}`.includes('@')) throw notAProxyUrl();
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${variable}: msgr goes through http:// and https:// proxies, not ${url.protocol}//`, { hint: `Give an HTTP proxy as ${form}.` });
  }
  if (url.hostname === '') throw new UsageError(`${variable}: the proxy URL names no host`, { hint: `Write it as ${form}.` });
  const decode = (part: string, what: string): string => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw new UsageError(`${variable}: the proxy ${what} has a "%" that does not start a percent-encoded character`, {
        hint: 'Percent-encode the user and password: % is %25, @ is %40, : is %3A.',
      });
    }
  };
  const user = url.username !== '' ? decode(url.username, 'user name') : undefined;
  const password = url.password !== '' ? decode(url.password, 'password') : undefined;
  const protocol = url.protocol;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port !== '' ? Number(url.port) : protocol === 'https:' ? 443 : 80;
  const origin = `${protocol}//${bracket(hostname)}:${port}`;
  const authorization = user !== undefined || password !== undefined ? `Basic ${Buffer.from(`${user ?? ''}:${password ?? ''}`).toString('base64')}` : undefined;
  const userPart = user !== undefined || password !== undefined ? `${url.username}${password !== undefined ? `:${url.password}` : ''}@` : '';
  return { variable, protocol, hostname, port, user, authorization, origin, shown: maskUrl(`${protocol}//${userPart}${bracket(hostname)}:${port}`) };
}

/** One NO_PROXY entry, parsed. */
interface NoProxyEntry {
  readonly text: string;
  readonly matches: (hostname: string, port: number) => boolean;
}

function parseEntry(raw: string): NoProxyEntry | undefined {
  const text = raw.trim();
  if (text === '') return undefined;
  if (text === '*') return { text, matches: () => true };
  // host:port, [v6]:port, v6 (several colons, no port), CIDR, IP or name.
  let host = text;
  let port = 0;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (v6 !== null) {
    host = v6[1] ?? '';
    port = v6[2] !== undefined ? Number(v6[2]) : 0;
  } else if ((text.match(/:/g) ?? []).length === 1) {
    const m = /^(.*):(\d+)$/.exec(text);
    if (m !== null) {
      host = m[1] ?? '';
      port = Number(m[2]);
    }
  }
  const portOk = (p: number): boolean => port === 0 || port === p;
  const cidr = /^(.+)\/(\d{1,3})$/.exec(host);
  if (cidr !== null) {
    const addr = cidr[1] ?? '';
    const family = isIP(addr);
    const bits = Number(cidr[2]);
    if (family === 0 || bits > (family === 4 ? 32 : 128)) return undefined;
    const list = new BlockList();
    list.addSubnet(addr, bits, family === 4 ? 'ipv4' : 'ipv6');
    return { text, matches: (h, p) => portOk(p) && isIP(h) === family && list.check(h, family === 4 ? 'ipv4' : 'ipv6') };
  }
  if (isIP(host) !== 0) {
    const want = host.toLowerCase();
    return { text, matches: (h, p) => portOk(p) && h.toLowerCase() === want };
  }
  // `.example.com` and `*.example.com` match the domain and every name under it, as a bare
  // `example.com` does (curl reads them alike).
  const name = host.replace(/^\*?\./, '').replace(/\.$/, '').toLowerCase();
  if (name === '') return undefined;
  // A name never matches an IP address by its digits (127.0.0.1 is not under ".0.0.1").
  return { text, matches: (h, p) => portOk(p) && isIP(h) === 0 && (h === name || h.endsWith(`.${name}`)) };
}

/** The NO_PROXY entry (and its variable) that exempts host:port from the proxy, if any. */
export function noProxyMatch(env: Env, hostname: string, port: number): { entry: string; variable: string } | undefined {
  const set = firstSet(env, NO_PROXY_VARIABLES);
  if (set === undefined) return undefined;
  const host = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
  for (const raw of set.value.split(/[\s,]+/)) {
    const entry = parseEntry(raw);
    if (entry?.matches(host, port) === true) return { entry: entry.text, variable: set.name };
  }
  return undefined;
}

/** How a request to `url` leaves this machine: through which proxy, or why through none. */
export function routeFor(url: URL, env: Env): Route {
  const names = url.protocol === 'https:' ? HTTPS_VARIABLES : HTTP_VARIABLES;
  const set = firstSet(env, names);
  if (set === undefined) return { kind: 'direct', reason: `no proxy: ${names.join(', ')} not set` };
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const exempt = noProxyMatch(env, url.hostname, port);
  if (exempt !== undefined) {
    // A proxy variable this host does not use cannot stop it; it is only described.
    let shown: string;
    try {
      shown = `${set.name} is ${parseProxyUrl(set.value, set.name).shown}`;
    } catch (err) {
      shown = err instanceof UsageError ? err.message : `${set.name} cannot be read`;
    }
    return { kind: 'direct', reason: `no proxy: ${exempt.variable} entry "${exempt.entry}" matches ${url.host} (${shown})`, noProxyEntry: exempt.entry, noProxyVariable: exempt.variable };
  }
  return { kind: 'proxy', proxy: parseProxyUrl(set.value, set.name) };
}

/** One line for --verbose and `doctor`. */
export function describeRoute(route: Route, url: URL): string {
  return route.kind === 'proxy' ? `proxy ${route.proxy.shown} (from ${route.proxy.variable}) for ${url.host}` : route.reason;
}

/** Why a tunnel through the proxy was not opened; carried by the connector's error. */
export interface TunnelFailure {
  readonly proxy: ProxyConfig;
  /** host:port asked for in CONNECT. */
  readonly target: string;
  /** The proxy's answer to CONNECT, when it gave one. */
  readonly status?: number;
  readonly statusText?: string;
  /** Proxy-Authenticate, for 407. */
  readonly authenticate?: string;
  /** No answer: the connection to the proxy failed (a Node error code), timed out or was closed. */
  readonly cause?: string;
  readonly timeoutMs?: number;
}

/** The error the tunnel connector fails with; `code` is what outcome.ts classifies. */
export class TunnelError extends Error {
  readonly code = TUNNEL_CODE;
  readonly failure: TunnelFailure;
  constructor(failure: TunnelFailure) {
    super(describeTunnelFailure(failure).message);
    this.name = 'TunnelError';
    this.failure = failure;
  }
}

const CREDENTIAL_HINT = (p: ProxyConfig): string =>
  `Put the proxy's user and password in ${p.variable} as http://USER:PASSWORD@${bracket(p.hostname)}:${p.port}, percent-encoding any @ : % / # ? in them (@ is %40, : is %3A, % is %25).`;

/** The message and hint for a tunnel that was not opened. Nothing in them comes from the password. */
export function describeTunnelFailure(f: TunnelFailure): { message: string; hint: string } {
  const p = f.proxy;
  const proxy = `the proxy ${p.origin} (from ${p.variable})`;
  const nothing = 'Nothing was sent.';
  const again = 'Nothing was sent; it is safe to run the same command again.';
  const answer = f.status !== undefined ? `HTTP ${f.status}${f.statusText !== undefined && f.statusText !== '' ? ` ${f.statusText}` : ''}` : '';
  if (f.status === 407 || f.status === 401) {
    const scheme = f.authenticate?.trim().split(/\s+/)[0];
    const basicOk = scheme === undefined || scheme === '' || /^basic$/i.test(scheme) || /\bbasic\b/i.test(f.authenticate ?? '');
    const what = p.authorization === undefined ? 'asks for credentials, and none were given' : `refused the credentials${p.user !== undefined ? ` of user "${p.user}"` : ''}`;
    return {
      message: `${proxy} ${what} (${answer})`,
      hint: basicOk ? `${CREDENTIAL_HINT(p)} ${nothing}` : `The proxy asks for ${scheme ?? 'another scheme'} authentication; msgr sends Basic only (user and password in ${p.variable}). Ask for a proxy account that takes Basic, or set NO_PROXY if the API can be reached without the proxy. ${nothing}`,
    };
  }
  if (f.status === 403) {
    return {
      message: `${proxy} refused the tunnel to ${f.target} (${answer}): its policy does not allow it`,
      hint: `Ask the proxy's administrators to allow CONNECT to ${f.target}, or, if the API can be reached without the proxy, add its host to NO_PROXY. ${nothing}`,
    };
  }
  if (f.status !== undefined && (f.status >= 500 || f.status === 408 || f.status === 429)) {
    return {
      message: `${proxy} could not open a tunnel to ${f.target} (${answer}): the proxy is up but did not reach the API`,
      hint: `Check the base URL's host (\`msgr doctor\` checks each step), or ask the proxy's administrators. ${again}`,
    };
  }
  if (f.status !== undefined) {
    return {
      message: `${proxy} answered ${answer} to CONNECT ${f.target}`,
      hint: `Check that ${p.variable} names an HTTP proxy that allows CONNECT (\`msgr doctor\` checks each step). ${nothing}`,
    };
  }
  const plainHttp = `Most proxies take plain HTTP, for https:// sites too: if this one does, write ${p.variable}=http://${bracket(p.hostname)}:${p.port} (with its user and password, if any).`;
  if (f.cause !== undefined && isTlsCode(f.cause)) {
    const kind = tlsFailureOf(f.cause);
    return {
      message: `cannot reach ${proxy}: TLS with the proxy failed (${f.cause})`,
      hint: kind === 'handshake' ? `${plainHttp} ${nothing}` : tlsHint(kind, '0'),
    };
  }
  const why =
    f.cause === 'ECONNREFUSED' ? 'connection refused'
    : f.cause === 'ENOTFOUND' || f.cause === 'EAI_AGAIN' || f.cause === 'EAI_NONAME' ? `its host name "${p.hostname}" was not found (DNS)`
    : f.cause === 'TIMEOUT' ? `no tunnel within ${((f.timeoutMs ?? 0) / 1000).toFixed(0)} s`
    : f.cause === 'CLOSED' ? 'it closed the connection before opening the tunnel'
    : f.cause === 'BAD_ANSWER' ? 'its answer to CONNECT was not HTTP'
    : (f.cause ?? 'error');
  return {
    message: `cannot reach ${proxy}: ${why}`,
    hint: `Check that the proxy is running and that ${p.variable} names it, or, if the API can be reached without the proxy, add its host to NO_PROXY.${p.protocol === 'https:' && (f.cause === 'TIMEOUT' || f.cause === 'CLOSED') ? ` ${plainHttp}` : ''} ${again}`,
  };
}
