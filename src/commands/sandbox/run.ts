// `msgr sandbox`: Commander's strings → options (zod) → a running server until Ctrl-C, SIGTERM or SIGHUP.
// stdout carries only the URL, on its own line, so scripts can read it; the rest is stderr.
import { resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { lineWidth, wrap } from '../../output/wrap.js';
// The one loopback rule msgr has: what the sandbox may listen on is what the key may be sent to.
import { isLoopbackHost } from '../../http/endpoint.js';
import { DEFAULT_EVENT_PLAN, DEFAULT_HOST, DEFAULT_PORT, startSandbox, type SandboxOptions } from '../../sandbox/server.js';
import { flagName } from '../shared/option-values.js';
import { maskUrl } from '../../output/sanitize.js';
import { makePrivate, privateWarning } from '../../files/private.js';
import { createUi } from '../../output/ui.js';

function numberFlag(flag: string, what: string, ok: (n: number) => boolean): z.ZodType<number | undefined> {
  return z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return undefined;
      const n = s.trim() === '' ? Number.NaN : Number(s);
      if (!Number.isFinite(n) || !ok(n)) {
        ctx.addIssue({ code: 'custom', message: `${flag} must be ${what} (got ${JSON.stringify(s)})` });
        return z.NEVER;
      }
      return n;
    });
}

export const SandboxFlagsSchema = z.object({
  port: numberFlag('--port', 'an integer from 0 to 65535', (n) => Number.isInteger(n) && n >= 0 && n <= 65535),
  host: z
    .string()
    .optional()
    .refine((h) => h === undefined || isLoopbackHost(h), { message: '--host must be a loopback address: 127.0.0.1, ::1 or localhost' }),
  apiKey: z.string().min(1, { message: '--api-key must not be empty (leave it out to accept any key)' }).optional(),
  account: z.string().min(1, { message: '--account must not be empty' }).optional(),
  record: z.string().min(1, { message: '--record needs a file name' }).optional(),
  latency: numberFlag('--latency', 'a number of milliseconds from 0 to 600000', (n) => n >= 0 && n <= 600_000),
  errorRate: numberFlag('--error-rate', 'a fraction from 0 to 1, like 0.05', (n) => n >= 0 && n <= 1),
  rateLimit: numberFlag('--rate-limit', 'a number of requests per second above 0', (n) => n > 0),
  seed: numberFlag('--seed', 'an integer from 0 to 4294967295', (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff),
  threads: numberFlag('--threads', 'an integer from 0 to 64', (n) => Number.isInteger(n) && n >= 0 && n <= 64),
  webhookUrl: z.string().min(1, { message: '--webhook-url needs a URL' }).optional(),
  eventDelay: numberFlag('--event-delay', 'a number of milliseconds from 0 to 3600000', (n) => n >= 0 && n <= 3_600_000),
  failedRate: numberFlag('--failed-rate', 'a fraction from 0 to 1, like 0.05', (n) => n >= 0 && n <= 1),
  expiredRate: numberFlag('--expired-rate', 'a fraction from 0 to 1, like 0.05', (n) => n >= 0 && n <= 1),
  sentEvents: z.boolean().optional(),
  partReceipts: z.boolean().optional(),
  replyRate: numberFlag('--reply-rate', 'a fraction from 0 to 1, like 0.05', (n) => n >= 0 && n <= 1),
  replyText: z.array(z.string().min(1, { message: '--reply-text must not be empty' })).optional(),
  webhookRetryFor: numberFlag('--webhook-retry-for', 'a number of seconds from 0 to 86400', (n) => n >= 0 && n <= 86_400),
  webhookRecord: z.string().min(1, { message: '--webhook-record needs a file name' }).optional(),
  quiet: z.boolean().optional(),
});

/** The flags that shape events, which mean nothing without --webhook-url. */
const EVENT_FLAGS = ['eventDelay', 'failedRate', 'expiredRate', 'sentEvents', 'partReceipts', 'replyRate', 'replyText', 'webhookRetryFor', 'webhookRecord'] as const;

export type SandboxFlags = z.output<typeof SandboxFlagsSchema>;

/** argv strings → the server's options; every refusal names its flag (exit 2). */
export function parseSandboxFlags(raw: Record<string, unknown>, cwd: string): { options: SandboxOptions; quiet: boolean } {
  const parsed = SandboxFlagsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(issue?.message ?? 'invalid sandbox options', { hint: 'see msgr sandbox --help' });
  }
  const f = parsed.data;
  const options: SandboxOptions = { host: f.host ?? DEFAULT_HOST, port: f.port ?? DEFAULT_PORT };
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

/** How long a stopping sandbox answers requests it already has, beyond their --latency. */
export const SANDBOX_DRAIN_MS = 1_000;

export async function runSandbox(ctx: Context, raw: Record<string, unknown>): Promise<void> {
  const { options, quiet } = parseSandboxFlags(raw, ctx.cwd);
  const width = lineWidth(ctx.stderr);
  const say = (line: string): void => {
    if (!quiet) ctx.stderr.write(`${wrap(line, width)}\n`);
  };
  // Requests with numbers and texts, events with replies: 0600, however they were made before.
  const loose = privateWarning(makePrivate([options.record, options.webhook?.record].flatMap((f) => (f !== undefined ? [[f, 0o600] as const] : []))), 'the sandbox\'s record files', 'They hold numbers and message texts.');
  if (loose !== undefined) createUi(ctx).warn(loose);
  // Ctrl-C closes the server and lets the action return instead of killing the process.
  ctx.enableGracefulInterrupt();
  const sandbox = await startSandbox({ ...options, startThreads: true, ...(quiet ? {} : { log: say }) });
  ctx.stdout.write(`${sandbox.url}\n`);
  say(`msgr sandbox listening on ${sandbox.url} — nothing sent here is delivered`);
  const key = options.apiKey === undefined ? 'MSGR_API_KEY=any-key' : 'MSGR_API_KEY=<the --api-key value>';
  const account = options.account ?? 'SANDBOX';
  say(`try: MSGR_BASE_URL=${sandbox.url} ${key} msgr send --account ${account} --to +447911123456 --from Acme --text Hello`);
  const faults: string[] = [];
  if (options.latencyMs !== undefined) faults.push(`latency ${options.latencyMs} ms`);
  if (options.errorRate !== undefined) faults.push(`error rate ${options.errorRate}`);
  if (options.rateLimit !== undefined) faults.push(`rate limit ${options.rateLimit}/s`);
  if (faults.length > 0) say(`faults: ${faults.join(', ')}`);
  if (options.record !== undefined) say(`recording accepted requests to ${options.record}`);
  const w = options.webhook;
  if (w !== undefined) {
    const p = w.plan;
    const outcomes = [`failed ${p.failedRate}`, `expired ${p.expiredRate}`, ...(p.replyRate > 0 ? [`replies ${p.replyRate} (${p.replyTexts.map((t) => JSON.stringify(t)).join(', ')})`] : [])];
    // The URL carries the listener's token: its path is not shown.
    say(`events: posted to ${maskUrl(w.url, { hidePath: true })} about ${p.delayMs} ms after each acceptance; ${outcomes.join(', ')}`);
  }
  say('Ctrl-C to stop');

  await new Promise<void>((resolve) => {
    if (ctx.interrupt.aborted) resolve();
    else ctx.interrupt.addEventListener('abort', () => resolve(), { once: true });
  });
  // Ctrl-C, SIGTERM (however often) and SIGHUP stop it the same way (main.ts): requests already
  // received are answered first, as a real deployment drains, for at most their latency and a
  // second; a second Ctrl-C quits at once.
  await sandbox.close((options.latencyMs ?? 0) + SANDBOX_DRAIN_MS);
  const s = sandbox.stats();
  say(`msgr sandbox stopped: ${plural(s.requests, 'request')}, ${s.accepted} accepted, ${plural(s.recipients, 'recipient')}`);
  if (s.webhooks !== undefined) {
    const h = s.webhooks;
    say(`events: ${h.delivered} acknowledged, ${h.retries} retried, ${h.gaveUp} given up${h.dropped > 0 ? `, ${h.dropped} dropped (queue full)` : ''}${h.unsent > 0 ? `, ${h.unsent} not sent (still queued at the stop)` : ''}`);
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
