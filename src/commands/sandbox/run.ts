// `msgr sandbox`: Commander's strings → options (zod) → a running server until Ctrl-C, SIGTERM or SIGHUP.
// stdout carries only the URL, on its own line, so scripts can read it; the rest is stderr.
import { resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
// The one loopback rule msgr has: what the sandbox may listen on is what the key may be sent to.
import { isLoopbackHost } from '../../http/endpoint.js';
import { DEFAULT_HOST, DEFAULT_PORT, startSandbox, type SandboxOptions } from '../../sandbox/server.js';

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
  quiet: z.boolean().optional(),
});

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
  return { options, quiet: f.quiet === true };
}

/** How long a stopping sandbox answers requests it already has, beyond their --latency. */
export const SANDBOX_DRAIN_MS = 1_000;

export async function runSandbox(ctx: Context, raw: Record<string, unknown>): Promise<void> {
  const { options, quiet } = parseSandboxFlags(raw, ctx.cwd);
  const say = (line: string): void => {
    if (!quiet) ctx.stderr.write(`${line}\n`);
  };
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
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
