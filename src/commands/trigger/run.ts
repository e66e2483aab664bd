// `msgr trigger`: one event in the sandbox's shape (src/sandbox/own-events.ts), posted once, and the
// answer as an exit code: 0 taken, 3 token refused, 4 other 4xx, 5 not taken (no listener, 503),
// 6 no answer.
import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.js';
import { AuthError, NotSentError, OutcomeUnknownError, RejectedError } from '../../errors.js';
import { accountFile } from '../../files/account-files.js';
import { DEFAULT_HOST, keptToken, webhookUrl } from '../../events/token.js';
import { maskUrl } from '../../output/sanitize.js';
import { FAILURES, newEventId, type SandboxEvent } from '../../sandbox/own-events.js';
import { createUi } from '../../output/ui.js';
import { resolveAccount } from '../shared/account.js';
import type { TriggerOptions } from './options.js';
import { stateDir } from '../../files/state-dir.js';

const TIMEOUT_MS = 10_000;

export function buildEvent(o: TriggerOptions, now: Date): Record<string, unknown> {
  const createdAt = now.toISOString();
  const messageId = o.messageId ?? `sbx_m_${randomBytes(8).toString('hex')}_0`;
  let event: SandboxEvent;
  if (o.kind === 'inbound') {
    event = { type: 'message.inbound', id: newEventId(), createdAt, from: o.number, to: o.to, channel: o.channel, text: o.text, ...(o.messageId !== undefined ? { inReplyTo: o.messageId } : {}) };
  } else if (o.kind === 'fallback') {
    event = { type: 'message.fallback', id: newEventId(), createdAt, messageId, msisdn: o.number, requested: 'RCS', channel: 'SMS', reason: 'not-rcs-capable' };
  } else {
    const failure = o.temporary ? FAILURES.temporary : FAILURES.permanent;
    event = {
      type: 'message.status',
      id: newEventId(),
      createdAt,
      messageId,
      msisdn: o.number,
      channel: o.channel,
      status: o.kind,
      final: o.kind !== 'sent',
      ...(o.part !== undefined ? { part: o.part } : {}),
      ...(o.kind === 'failed' ? { error: { ...failure, ...(o.code !== undefined ? { code: o.code } : {}) } } : {}),
    };
  }
  const out = structuredClone(event) as unknown as Record<string, unknown>;
  for (const { path, value } of o.set) setPath(out, path, value);
  return out;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const steps = path.split('.');
  let cur = target;
  for (const step of steps.slice(0, -1)) {
    const next = cur[step];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) cur[step] = {};
    cur = cur[step] as Record<string, unknown>;
  }
  cur[steps[steps.length - 1] as string] = value;
}

export async function runTrigger(ctx: Context, opts: TriggerOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  let url = opts.url?.href;
  if (url === undefined) {
    const { account } = await resolveAccount(ctx, opts);
    const token = ctx.env.MSGR_LISTEN_TOKEN !== undefined && ctx.env.MSGR_LISTEN_TOKEN !== '' ? ctx.env.MSGR_LISTEN_TOKEN : keptToken(accountFile(stateDir(ctx.env, ctx.cwd), 'events', account, 'token')).token;
    url = webhookUrl(DEFAULT_HOST, opts.port, token);
  }
  const event = buildEvent(opts, ctx.now());
  const body = JSON.stringify(event);
  const shown = maskUrl(url, { hidePath: true });
  // Through the Context's HTTP, which sorts a failure: not sent, or in doubt (docs/design.md: "HTTP").
  const { hook } = await ctx.http();
  const a = await hook({ url: new URL(url), method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': `msgr/${ctx.version} trigger`, 'webhook-id': String(event.id) }, body, timeoutMs: TIMEOUT_MS, keepBytes: 64 * 1024 });
  if (a.kind === 'unknown') throw new OutcomeUnknownError(`${shown} ${a.timedOut ? `did not answer within ${TIMEOUT_MS / 1000} s` : `did not answer (${a.words})`}; the event may or may not have been taken`, { hint: 'Check the listener, then send it again: a listener records the same event id once.' });
  if (a.kind === 'not-sent') {
    const why = a.timedOut ? `no connection within ${TIMEOUT_MS / 1000} s` : a.words;
    throw new NotSentError(`cannot reach ${shown} (${why}); the event was not sent`, { hint: a.reason === 'ECONNREFUSED' ? 'Is msgr listen running? Start it (msgr listen), or give --url.' : 'Check the URL.' });
  }
  const status = a.status;
  const answer = a.text.slice(0, 500);
  if (opts.json) ctx.stdout.write(`${JSON.stringify({ url: shown, status, event }, null, 2)}\n`);
  const what = `${opts.kind} event ${String(event.id)}`;
  if (status >= 200 && status < 300) {
    if (!opts.json) ctx.stdout.write(`${body}\n`);
    ui.success(`${what} taken by ${shown} (HTTP ${status})`);
    return;
  }
  const detail = answer.trim() === '' ? '' : `: ${answer.trim().split('\n')[0] ?? ''}`;
  if (status === 401 || status === 403) throw new AuthError(`${shown} refused the ${what} (HTTP ${status})${detail}`, { hint: 'The token is wrong: use the URL msgr listen --print-url prints (same --account or profile), or give --url.', status });
  if (status >= 500) throw new NotSentError(`${shown} did not take the ${what} (HTTP ${status})${detail}`, { hint: 'A 503 from msgr listen means it could not store the event (a full disk): fix that and send again.', status });
  throw new RejectedError(`${shown} refused the ${what} (HTTP ${status})${detail}`, { status });
}
