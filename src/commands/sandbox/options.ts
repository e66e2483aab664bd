// argv → options for `msgr sandbox`: Commander's strings → the server's options; every refusal
// names its flag (exit 2), the first of them in the order the flags are listed here.
import { resolve as resolvePath } from 'node:path';
import { UsageError } from '../../errors.js';
// The one loopback rule msgr has: what the sandbox may listen on is what the key may be sent to.
import { isLoopbackHost } from '../../http/endpoint.js';
import { DEFAULT_EVENT_PLAN, DEFAULT_HOST, DEFAULT_PORT, type SandboxOptions } from '../../sandbox/server.js';
import { flagName, type Raw } from '../shared/option-values.js';

/** The server's options, and whether it says nothing on stderr. */
export interface SandboxRun {
  readonly options: SandboxOptions;
  readonly quiet: boolean;
}

function refuse(message: string): never {
  throw new UsageError(message, { hint: 'see msgr sandbox --help' });
}

function text(raw: Raw, key: string, empty: string): string | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') refuse(`${flagName(key)}: expected a value`);
  if (v.length === 0) refuse(empty);
  return v;
}

function number(raw: Raw, key: string, what: string, ok: (n: number) => boolean): number | undefined {
  const s = raw[key];
  if (s === undefined) return undefined;
  if (typeof s !== 'string') refuse(`${flagName(key)}: expected a value`);
  const n = s.trim() === '' ? Number.NaN : Number(s);
  if (!Number.isFinite(n) || !ok(n)) refuse(`${flagName(key)} must be ${what} (got ${JSON.stringify(s)})`);
  return n;
}

function flag(raw: Raw, key: string): boolean | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') refuse(`${flagName(key)} takes no value`);
  return v;
}

const fraction = (n: number): boolean => n >= 0 && n <= 1;

/** The flags that shape events, which mean nothing without --webhook-url. */
const EVENT_FLAGS = ['eventDelay', 'failedRate', 'expiredRate', 'sentEvents', 'partReceipts', 'replyRate', 'replyText', 'webhookRetryFor', 'webhookRecord'] as const;

export function parseSandboxOptions(raw: Raw, cwd: string): SandboxRun {
  const port = number(raw, 'port', 'an integer from 0 to 65535', (n) => Number.isInteger(n) && n >= 0 && n <= 65535);
  const hostValue = raw.host;
  if (hostValue !== undefined && typeof hostValue !== 'string') refuse('--host: expected a value');
  const host = hostValue;
  if (host !== undefined && !isLoopbackHost(host)) refuse('--host must be a loopback address: 127.0.0.1, ::1 or localhost');
  const f = {
    apiKey: text(raw, 'apiKey', '--api-key must not be empty (leave it out to accept any key)'),
    account: text(raw, 'account', '--account must not be empty'),
    record: text(raw, 'record', '--record needs a file name'),
    latency: number(raw, 'latency', 'a number of milliseconds from 0 to 600000', (n) => n >= 0 && n <= 600_000),
    errorRate: number(raw, 'errorRate', 'a fraction from 0 to 1, like 0.05', fraction),
    rateLimit: number(raw, 'rateLimit', 'a number of requests per second above 0', (n) => n > 0),
    seed: number(raw, 'seed', 'an integer from 0 to 4294967295', (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff),
    threads: number(raw, 'threads', 'an integer from 0 to 64', (n) => Number.isInteger(n) && n >= 0 && n <= 64),
    webhookUrl: text(raw, 'webhookUrl', '--webhook-url needs a URL'),
    eventDelay: number(raw, 'eventDelay', 'a number of milliseconds from 0 to 3600000', (n) => n >= 0 && n <= 3_600_000),
    failedRate: number(raw, 'failedRate', 'a fraction from 0 to 1, like 0.05', fraction),
    expiredRate: number(raw, 'expiredRate', 'a fraction from 0 to 1, like 0.05', fraction),
    sentEvents: flag(raw, 'sentEvents'),
    partReceipts: flag(raw, 'partReceipts'),
    replyRate: number(raw, 'replyRate', 'a fraction from 0 to 1, like 0.05', fraction),
    replyText: replyTexts(raw.replyText),
    webhookRetryFor: number(raw, 'webhookRetryFor', 'a number of seconds from 0 to 86400', (n) => n >= 0 && n <= 86_400),
    webhookRecord: text(raw, 'webhookRecord', '--webhook-record needs a file name'),
    quiet: flag(raw, 'quiet'),
  };
  const options: SandboxOptions = { host: host ?? DEFAULT_HOST, port: port ?? DEFAULT_PORT };
  if (f.apiKey !== undefined) options.apiKey = f.apiKey;
  if (f.account !== undefined) options.account = f.account;
  if (f.record !== undefined) options.record = resolvePath(cwd, f.record);
  if (f.latency !== undefined) options.latencyMs = f.latency;
  if (f.errorRate !== undefined) options.errorRate = f.errorRate;
  if (f.rateLimit !== undefined) options.rateLimit = f.rateLimit;
  if (f.seed !== undefined) options.seed = f.seed;
  if (f.threads !== undefined) options.threads = f.threads;
  if (f.webhookUrl !== undefined) {
    options.webhook = {
      url: f.webhookUrl,
      plan: {
        ...DEFAULT_EVENT_PLAN,
        ...(f.eventDelay !== undefined ? { delayMs: f.eventDelay } : {}),
        ...(f.failedRate !== undefined ? { failedRate: f.failedRate } : {}),
        ...(f.expiredRate !== undefined ? { expiredRate: f.expiredRate } : {}),
        ...(f.replyRate !== undefined ? { replyRate: f.replyRate } : {}),
        ...(f.replyText !== undefined ? { replyTexts: f.replyText } : {}),
        sentEvents: f.sentEvents === true,
        partReceipts: f.partReceipts === true,
      },
      ...(f.webhookRetryFor !== undefined ? { retryForMs: f.webhookRetryFor * 1000 } : {}),
      ...(f.webhookRecord !== undefined ? { record: resolvePath(cwd, f.webhookRecord) } : {}),
    };
  } else {
    const stray = EVENT_FLAGS.find((k) => f[k] !== undefined);
    if (stray !== undefined) throw new UsageError(`${flagName(stray)} needs --webhook-url: without it the sandbox sends no events`, { hint: `For example: MSGR_WEBHOOK_URL="$(msgr listen --print-url)" msgr sandbox ${flagName(stray)} ...` });
  }
  return { options, quiet: f.quiet === true };
}

function replyTexts(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((t): t is string => typeof t === 'string')) refuse('--reply-text: expected a value');
  if (v.some((t) => t.length === 0)) refuse('--reply-text must not be empty');
  return v;
}
