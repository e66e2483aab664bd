// `msgr doctor`: the way from this machine to the API, one step at a time, without sending a
// message (docs/network.md). Only a GET of the base URL is
// ever made. Each step says what it found and, when it fails, what to do. The steps use the same
// pieces a send does: the settings' resolution, the proxy route, the tunnel, the TLS options and
// the HTTP client's dispatcher.
import { lookup } from 'node:dns/promises';
import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { checkServerIdentity, connect as tlsConnect, rootCertificates, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import { randomBytes, X509Certificate } from 'node:crypto';
import type { Context } from '../context.js';
import { caFileSource, readCaFile } from '../http/ca-file.js';
import { messagesEndpoint } from '../http/endpoint.js';
import { classifyTunnelFailure, withoutNothingSent } from '../http/outcome.js';
import { describeRoute, describeTunnelFailure, routeFor, TunnelError, type Route } from '../http/proxy.js';
import { hasSystemCaSwitch, isTlsCode, tlsFailureOf, tlsHint } from '../http/trust.js';
import { maskSecret } from '../output/sanitize.js';
import { describeSource, type Resolved, type Settings } from '../settings/resolve.js';
import { settingsEndpoint } from '../settings/target.js';
import { UsageError } from '../errors.js';
import { ensureDir } from '../files/dirs.js';
import { stateDir } from '../files/state-dir.js';

export type StepStatus = 'pass' | 'warn' | 'fail' | 'skip' | 'info';

export interface Step {
  readonly id: string;
  readonly title: string;
  readonly status: StepStatus;
  /** What was found, one line (more lines for settings). */
  readonly detail: string;
  /** What to do, for a failure or a warning. */
  readonly hint?: string;
  /** For a failure: 2 when a setting must be fixed, 5 when the API cannot be reached. */
  readonly exitCode?: 2 | 5;
  readonly data?: Record<string, unknown>;
}

export interface DoctorInput {
  readonly settings: Settings;
  /** The in-process sandbox's URL under --sandbox (no key, account or proxy needed). */
  readonly sandboxUrl?: string;
  readonly timeoutMs: number;
  readonly userAgent: string;
}

export interface DoctorReport {
  readonly baseUrl: string | null;
  readonly steps: Step[];
  readonly exitCode: 0 | 2 | 5;
}

const FREE_SPACE_WARN = 100 * 1024 * 1024;
const CLOCK_SKEW_WARN_MS = 60_000;

export async function runDoctor(ctx: Context, input: DoctorInput): Promise<DoctorReport> {
  const steps: Step[] = [];
  const add = (step: Step): Step => {
    steps.push(step);
    return step;
  };
  const sandbox = input.sandboxUrl !== undefined;
  const settingsStep = add(checkSettings(input.settings, sandbox));
  add(checkNode(ctx));
  add(checkStateFolder(ctx));

  const baseUrl = input.sandboxUrl ?? input.settings.baseUrl.value;
  let endpoint: URL | undefined;
  if (baseUrl !== undefined) {
    try {
      endpoint = input.sandboxUrl !== undefined ? messagesEndpoint(input.sandboxUrl, '--sandbox') : settingsEndpoint(ctx, input.settings.baseUrl);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      if (settingsStep.status !== 'fail') steps[0] = { ...settingsStep, status: 'fail', exitCode: 2, hint: `${err.message}${err.hint !== undefined ? `. ${err.hint}` : ''}` };
    }
  }
  const caFile = input.settings.caFile;
  let tls: Record<string, unknown> = {};
  if (caFile.value !== undefined) {
    try {
      const { extraCaOptions } = await import('../http/client.js');
      tls = extraCaOptions(caFile.value, ctx.env, caFileSource(caFile));
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      add({ id: 'ca-file', title: 'CA file', status: 'fail', detail: err.message, hint: err.hint ?? 'Fix the CA file setting.', exitCode: 2 });
      endpoint = undefined;
    }
  }
  if (endpoint === undefined) return finish(baseUrl, steps, ['dns', 'proxy', 'connect', 'tls', 'http']);
  const url = new URL(baseUrl ?? endpoint.origin);
  const host = endpoint.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = endpoint.port !== '' ? Number(endpoint.port) : endpoint.protocol === 'https:' ? 443 : 80;

  let route: Route;
  try {
    route = sandbox ? { kind: 'direct', reason: 'no proxy: the built-in sandbox is in this process' } : routeFor(endpoint, ctx.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    add({ id: 'proxy', title: 'proxy', status: 'fail', detail: err.message, hint: err.hint ?? '', exitCode: 2 });
    return finish(baseUrl ?? null, steps, ['dns', 'connect', 'tls', 'http']);
  }

  const dns = add(await checkDns(host, route));
  add({ id: 'proxy', title: 'proxy', status: 'pass', detail: describeRoute(route, endpoint), data: route.kind === 'proxy' ? { proxy: route.proxy.shown, variable: route.proxy.variable } : { proxy: null, reason: route.reason } });

  if (dns.status === 'fail') return finish(baseUrl ?? null, steps, ['connect', 'tls', 'http']);
  const connectTimeout = Math.min(10_000, input.timeoutMs);
  const connected = await checkConnect(route, host, port, connectTimeout, tls, input.userAgent);
  add(connected.step);
  if (connected.socket === undefined) return finish(baseUrl ?? null, steps, ['tls', 'http']);
  if (endpoint.protocol === 'https:') {
    const tlsStep = await checkTls(ctx, connected.socket, host, connectTimeout, tls, caFile, route, input.settings.profile.value);
    add(tlsStep);
    if (tlsStep.status === 'fail') return finish(baseUrl ?? null, steps, ['http']);
  } else {
    connected.socket.destroy();
    add({ id: 'tls', title: 'TLS', status: 'skip', detail: `plain http to a loopback host (${host}): no TLS` });
  }
  add(await checkHttp(ctx, url, endpoint, route, input));
  add({ id: 'api-key', title: 'API key', status: 'info', detail: 'not checked: the API has no way to check a key without sending a message (a send with a wrong key exits 3)' });
  return finish(baseUrl ?? null, steps, []);
}

function finish(baseUrl: string | undefined | null, steps: Step[], skipped: string[]): DoctorReport {
  const titles: Record<string, string> = { dns: 'DNS', proxy: 'proxy', connect: 'connection', tls: 'TLS', http: 'HTTP' };
  for (const id of skipped) {
    if (!steps.some((s) => s.id === id)) steps.push({ id, title: titles[id] ?? id, status: 'skip', detail: 'not checked: an earlier step failed' });
  }
  const failed = steps.filter((s) => s.status === 'fail');
  const exitCode = failed.some((s) => s.exitCode === 2) ? 2 : failed.length > 0 ? 5 : 0;
  return { baseUrl: baseUrl ?? null, steps, exitCode };
}

function checkSettings(s: Settings, sandbox: boolean): Step {
  const line = (label: string, r: Resolved<string | undefined>, value: string | undefined = r.value): string => (value === undefined ? `${label}: ${describeSource(r)}` : `${label}: ${value} (${describeSource(r)})`);
  const key = s.apiKey.value !== undefined ? maskSecret(s.apiKey.value) : undefined;
  const lines = [
    line('profile', s.profile),
    line('base URL', s.baseUrl),
    line('account', s.account),
    line('API key', s.apiKey, key),
    line('CA file', s.caFile),
  ];
  const data = {
    profile: s.profile.value ?? null,
    baseUrl: { value: s.baseUrl.value ?? null, source: describeSource(s.baseUrl) },
    account: { value: s.account.value ?? null, source: describeSource(s.account) },
    apiKey: { value: key ?? null, source: describeSource(s.apiKey) },
    caFile: { value: s.caFile.value ?? null, source: describeSource(s.caFile) },
    configFile: s.configFile,
  };
  if (sandbox) return { id: 'settings', title: 'settings', status: 'pass', detail: ['--sandbox: the built-in emulator needs no base URL, account or key', ...lines].join('\n'), data };
  const missing = [s.baseUrl.value === undefined ? 'base URL (--base-url, MSGR_BASE_URL)' : '', s.account.value === undefined ? 'account (--account, MSGR_ACCOUNT_REFERENCE)' : '', s.apiKey.value === undefined ? 'API key (MSGR_API_KEY, --api-key-file, --api-key-stdin)' : ''].filter((m) => m !== '');
  if (missing.length > 0) {
    return { id: 'settings', title: 'settings', status: 'fail', detail: lines.join('\n'), hint: `Not set: ${missing.join('; ')}. Give them as flags or variables, or save a profile (msgr profile add NAME …).`, exitCode: 2, data };
  }
  return { id: 'settings', title: 'settings', status: 'pass', detail: lines.join('\n'), data };
}

function checkNode(ctx: Context): Step {
  const version = ctx.nodeVersion;
  const systemCa = ctx.env.NODE_USE_SYSTEM_CA === '1';
  const extra = ctx.env.NODE_EXTRA_CA_CERTS;
  const notes = [
    hasSystemCaSwitch(version) ? (systemCa ? "NODE_USE_SYSTEM_CA=1: the operating system's store is trusted" : 'NODE_USE_SYSTEM_CA=1 available') : 'NODE_USE_SYSTEM_CA needs Node 22.19+, 24.6+ or 25+',
    ...(extra !== undefined && extra !== '' ? [`NODE_EXTRA_CA_CERTS=${extra}`] : []),
  ];
  const data = { version, systemCa, extraCaCerts: extra ?? null };
  if (extra !== undefined && extra !== '') {
    // Node only warns at start-up about a file it cannot load, then trusts nothing from it.
    try {
      readCaFile(extra, 'NODE_EXTRA_CA_CERTS');
    } catch (err) {
      const why = err instanceof UsageError ? err.message : String(err);
      return { id: 'node', title: 'Node', status: 'warn', detail: `Node ${version} (${notes.join('; ')})\n${why}: Node ignores it, so no certificate of it is trusted`, hint: 'Point NODE_EXTRA_CA_CERTS at a readable PEM file, or give the root with --ca-file (MSGR_CA_FILE, or the profile\'s ca-file) instead.', data };
    }
  }
  return { id: 'node', title: 'Node', status: 'pass', detail: `Node ${version} (${notes.join('; ')})`, data };
}

function checkStateFolder(ctx: Context): Step {
  const dir = stateDir(ctx.env, ctx.cwd);
  const probe = join(dir, `.doctor-${randomBytes(6).toString('hex')}`);
  try {
    // As send-bulk makes it: mkdirSync's `recursive` never returns on some paths (under /proc).
    ensureDir(dir);
    writeFileSync(probe, 'msgr doctor\n');
    rmSync(probe, { force: true });
  } catch (err) {
    const cause = err instanceof UsageError ? err.cause : err;
    const code = (cause as NodeJS.ErrnoException | undefined)?.code ?? 'error';
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'read-only file system' : code === 'ENOSPC' ? 'disk full' : code;
    return {
      id: 'state',
      title: 'state folder',
      status: 'fail',
      detail: `${dir} is not writable (${why})`,
      hint: 'send-bulk keeps its journal there. Make the folder writable, or point MSGR_CONFIG_DIR at a writable folder.',
      exitCode: 2,
      data: { path: dir, writable: false },
    };
  }
  let free: number | undefined;
  try {
    const fs = statfsSync(dir);
    free = fs.bavail * fs.bsize;
  } catch {
    free = undefined;
  }
  const freeText = free !== undefined ? `, ${formatBytes(free)} free` : '';
  const low = free !== undefined && free < FREE_SPACE_WARN;
  return {
    id: 'state',
    title: 'state folder',
    status: low ? 'warn' : 'pass',
    detail: `${dir} writable${freeText}`,
    ...(low ? { hint: 'Little free space: a large send-bulk journal or spool may not fit.' } : {}),
    data: { path: dir, writable: true, freeBytes: free ?? null },
  };
}

async function checkDns(host: string, route: Route): Promise<Step> {
  if (isIP(host) !== 0) return { id: 'dns', title: 'DNS', status: 'pass', detail: `${host} is an IP address`, data: { host, addresses: [host] } };
  try {
    const addresses = (await lookup(host, { all: true })).map((a) => a.address);
    return { id: 'dns', title: 'DNS', status: 'pass', detail: `${host} → ${addresses.join(', ')}`, data: { host, addresses } };
  } catch (err) {
    const cause = err instanceof UsageError ? err.cause : err;
    const code = (cause as NodeJS.ErrnoException | undefined)?.code ?? 'error';
    if (route.kind === 'proxy') {
      return { id: 'dns', title: 'DNS', status: 'info', detail: `${host} does not resolve here (${code}); the proxy resolves it`, data: { host, addresses: [], error: code } };
    }
    return { id: 'dns', title: 'DNS', status: 'fail', detail: `${host} does not resolve (${code})`, hint: 'Check the base URL for a typo; if this network reaches the internet through a proxy, set HTTPS_PROXY.', exitCode: 5, data: { host, addresses: [], error: code } };
  }
}

async function checkConnect(route: Route, host: string, port: number, timeoutMs: number, tls: Record<string, unknown>, userAgent: string): Promise<{ step: Step; socket?: Socket }> {
  const t0 = performance.now();
  const ms = (): number => Math.round(performance.now() - t0);
  if (route.kind === 'proxy') {
    const { openTunnel } = await import('../http/tunnel.js');
    try {
      const { socket, info } = await openTunnel({ proxy: route.proxy, timeoutMs, tls, userAgent }, host, port);
      return { step: { id: 'connect', title: 'connection', status: 'pass', detail: `the proxy ${route.proxy.origin} opened a tunnel to ${host}:${port} (HTTP ${info.status}) in ${ms()} ms` }, socket };
    } catch (err) {
      if (!(err instanceof TunnelError)) throw err;
      const text = describeTunnelFailure(err.failure);
      return { step: { id: 'connect', title: 'connection', status: 'fail', detail: text.message, hint: withoutNothingSent(text.hint) ?? '', exitCode: classifyTunnelFailure(err.failure).config ? 2 : 5, data: { status: err.failure.status ?? null, cause: err.failure.cause ?? null } } };
    }
  }
  return new Promise((resolve) => {
    const socket = netConnect({ host, port });
    const timer = setTimeout(() => fail('TIMEOUT'), timeoutMs);
    const fail = (code: string): void => {
      clearTimeout(timer);
      socket.destroy();
      const why = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'host name not found (DNS)' : code === 'TIMEOUT' ? `no connection within ${Math.round(timeoutMs / 1000)} s` : code;
      resolve({ step: { id: 'connect', title: 'connection', status: 'fail', detail: `cannot connect to ${host}:${port}: ${why}`, hint: 'Check the base URL and port; a firewall may block this machine, or the network may need a proxy (HTTPS_PROXY).', exitCode: 5 } });
    };
    socket.once('error', (err: NodeJS.ErrnoException) => fail(err.code ?? 'error'));
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve({ step: { id: 'connect', title: 'connection', status: 'pass', detail: `TCP to ${host}:${port} (${socket.remoteAddress ?? '?'}) in ${ms()} ms` }, socket });
    });
  });
}

let bundledFingerprints: Set<string> | undefined;
function isBundledRoot(cert: DetailedPeerCertificate): boolean {
  bundledFingerprints ??= new Set(rootCertificates.map((pem) => new X509Certificate(pem).fingerprint256));
  return bundledFingerprints.has(cert.fingerprint256);
}

function rootOf(cert: DetailedPeerCertificate): DetailedPeerCertificate {
  let c = cert;
  for (let i = 0; i < 10 && c.issuerCertificate !== undefined && c.issuerCertificate !== c && c.issuerCertificate.fingerprint256 !== c.fingerprint256; i++) c = c.issuerCertificate;
  return c;
}

const name = (n: Record<string, string | string[] | undefined> | undefined): string =>
  n === undefined ? '?' : Object.entries(n).filter(([k]) => ['CN', 'O', 'OU'].includes(k)).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : String(v)}`).join(', ') || '?';

async function checkTls(ctx: Context, socket: Socket, host: string, timeoutMs: number, tls: Record<string, unknown>, caFile: Resolved<string | undefined>, route: Route, profile: string | undefined): Promise<Step> {
  const servername = isIP(host) !== 0 ? undefined : host;
  return new Promise((resolve) => {
    // Verification is done below, by hand, so that an untrusted chain can still be described.
    const secure: TLSSocket = tlsConnect({ ...tls, socket, ...(servername !== undefined ? { servername } : {}), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    const timer = setTimeout(() => {
      secure.destroy();
      resolve({ id: 'tls', title: 'TLS', status: 'fail', detail: `no TLS handshake with ${host} within ${Math.round(timeoutMs / 1000)} s`, hint: 'Something between this machine and the API holds the connection: a firewall or the proxy.', exitCode: 5 });
    }, timeoutMs);
    secure.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ id: 'tls', title: 'TLS', status: 'fail', detail: `TLS with ${host} failed: ${err.code ?? err.message}`, hint: withoutNothingSent(tlsHint('handshake', ctx.nodeVersion, profile)) ?? '', exitCode: 5 });
    });
    secure.once('secureConnect', () => {
      clearTimeout(timer);
      const cert = secure.getPeerCertificate(true);
      const nameError = checkServerIdentity(host, cert);
      const chainError = secure.authorizationError as unknown as string | Error | null;
      secure.destroy();
      const root = rootOf(cert);
      const expires = new Date(cert.valid_to);
      const days = Math.floor((expires.getTime() - ctx.now().getTime()) / 86_400_000);
      const detail = `subject ${name(cert.subject)}; issuer ${name(cert.issuer)}; expires ${expires.toISOString().slice(0, 10)} (${days} day${days === 1 ? '' : 's'})`;
      // The root is known only when the chain could be built (it is then not the leaf).
      const rootText = root !== cert && root.fingerprint256 !== cert.fingerprint256 ? `; root ${name(root.subject)}` : '';
      const data = { subject: name(cert.subject), issuer: name(cert.issuer), root: name(root.subject), validTo: expires.toISOString(), trusted: chainError === null && nameError === undefined, bundledRoot: isBundledRoot(root) };
      const via = route.kind === 'proxy' ? ` (through the proxy ${route.proxy.origin})` : '';
      if (chainError !== null) {
        const code = typeof chainError === 'string' ? chainError : ((chainError as NodeJS.ErrnoException).code ?? chainError.message);
        resolve({
          id: 'tls',
          title: 'TLS',
          status: 'fail',
          detail: `the certificate ${host} presents${via} is not trusted (${code}): ${detail}${rootText}`,
          hint: withoutNothingSent(tlsHint(tlsFailureOf(code), ctx.nodeVersion, profile)) ?? '',
          exitCode: 5,
          data,
        });
        return;
      }
      if (nameError !== undefined) {
        resolve({ id: 'tls', title: 'TLS', status: 'fail', detail: `the certificate does not name ${host}: ${nameError.message}`, hint: withoutNothingSent(tlsHint('name', ctx.nodeVersion, profile)) ?? '', exitCode: 5, data });
        return;
      }
      if (!data.bundledRoot) {
        const trustedBy = caFile.value !== undefined ? `the CA file (${describeSource(caFile)})` : ctx.env.NODE_EXTRA_CA_CERTS !== undefined ? 'NODE_EXTRA_CA_CERTS' : ctx.env.NODE_USE_SYSTEM_CA === '1' ? "the operating system's store" : 'a root outside Node\'s bundled store';
        resolve({
          id: 'tls',
          title: 'TLS',
          status: 'warn',
          detail: `trusted through ${trustedBy}, not Node's bundled roots: ${detail}${rootText}`,
          hint: 'This network may be inspecting TLS, or the server uses a private CA; that is fine if you expect it.',
          data,
        });
        return;
      }
      const soon = days < 14;
      resolve({ id: 'tls', title: 'TLS', status: soon ? 'warn' : 'pass', detail: `trusted: ${detail}`, ...(soon ? { hint: 'The certificate expires soon.' } : {}), data });
    });
  });
}

async function checkHttp(ctx: Context, url: URL, endpoint: URL, route: Route, input: DoctorInput): Promise<Step> {
  const { createDispatcher } = await import('../http/client.js');
  const { BodyCutShort, roundTrip } = await import('../http/undici.js');
  const { classifyNetworkError } = await import('../http/outcome.js');
  const dispatcher = createDispatcher(
    {
      endpoint,
      apiKey: '',
      userAgent: input.userAgent,
      timeoutMs: input.timeoutMs,
      caFile: input.settings.caFile.value,
      caFileSource: caFileSource(input.settings.caFile),
      connections: 1,
      env: ctx.env,
      direct: route.kind === 'direct',
    },
    route,
  );
  const target = new URL(url.toString());
  target.search = '';
  target.hash = '';
  const t0 = performance.now();
  try {
    // A GET of the base URL only: never the messages endpoint, never a POST. Its body is not
    // needed, and one cut short changes nothing: the status line came.
    const res = await roundTrip(dispatcher, target, { method: 'GET', headers: { 'user-agent': input.userAgent, accept: '*/*' }, signal: ctx.interrupt, limit: 0 }).catch((err: unknown) => {
      if (err instanceof BodyCutShort) return err;
      throw err;
    });
    const ms = Math.round(performance.now() - t0);
    const dateHeader = res.headers.date;
    const serverDate = typeof dateHeader === 'string' ? Date.parse(dateHeader) : Number.NaN;
    const skewMs = Number.isNaN(serverDate) ? undefined : serverDate - ctx.now().getTime();
    const skewText = skewMs === undefined ? 'the server sent no Date' : `server clock ${Math.abs(Math.round(skewMs / 1000))} s ${skewMs >= 0 ? 'ahead of' : 'behind'} this machine's`;
    const skewed = skewMs !== undefined && Math.abs(skewMs) > CLOCK_SKEW_WARN_MS;
    return {
      id: 'http',
      title: 'HTTP',
      status: skewed ? 'warn' : 'pass',
      detail: `GET ${target.toString()} → HTTP ${res.status} in ${ms} ms (any status shows the way works); ${skewText}`,
      ...(skewed ? { hint: "This machine's clock is off: a skewed clock breaks TLS and --validity. Set it right (NTP)." } : {}),
      data: { status: res.status, ms, serverDate: Number.isNaN(serverDate) ? null : new Date(serverDate).toISOString(), skewMs: skewMs ?? null },
    };
  } catch (err) {
    const cls = classifyNetworkError(err);
    const msg = err instanceof TunnelError ? describeTunnelFailure(err.failure).message : `${(err as Error).message} (${cls.code})`;
    return { id: 'http', title: 'HTTP', status: 'fail', detail: `GET ${target.toString()} failed: ${msg}`, hint: isTlsCode(cls.code) ? (withoutNothingSent(tlsHint(tlsFailureOf(cls.code), ctx.nodeVersion, input.settings.profile.value)) ?? '') : 'The connection worked but HTTP did not: run again with --verbose, or check the base URL.', exitCode: cls.kind === 'not-sent' && cls.config === true ? 2 : 5 };
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(0)} MB`;
  return `${Math.round(n / 1024)} kB`;
}
