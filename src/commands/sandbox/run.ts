// `msgr sandbox`: options (./options.ts) → a running server until Ctrl-C, SIGTERM or SIGHUP.
// stdout carries only the URL, on its own line, so scripts can read it; the rest is stderr.
import type { Context } from '../../context.js';
import { lineWidth, wrap } from '../../output/wrap.js';
import { startSandbox } from '../../sandbox/server.js';
import { maskUrl } from '../../output/sanitize.js';
import { makePrivate, privateWarning } from '../../files/private.js';
import { createUi } from '../../output/ui.js';
import type { SandboxRun } from './options.js';

/** How long a stopping sandbox answers requests it already has, beyond their --latency. */
export const SANDBOX_DRAIN_MS = 1_000;

export async function runSandbox(ctx: Context, { options, quiet }: SandboxRun): Promise<void> {
  const width = lineWidth(ctx.stderr);
  const say = (line: string): void => {
    if (!quiet) ctx.stderr.write(`${wrap(line, width)}\n`);
  };
  // Requests with numbers and texts, events with replies: 0600, however they were made before.
  const loose = privateWarning(makePrivate([options.record, options.webhook?.record].flatMap((f) => (f !== undefined ? [[f, 0o600] as const] : []))), 'the sandbox\'s record files', 'They hold numbers and message texts.');
  if (loose !== undefined) createUi(ctx).warn(loose);
  // Ctrl-C closes the server and lets the action return instead of killing the process.
  ctx.enableGracefulInterrupt();
  const sandbox = await startSandbox({ ...options, http: ctx.http, startThreads: true, ...(quiet ? {} : { log: say }) });
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
