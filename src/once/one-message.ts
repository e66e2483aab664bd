// `msgr send --once KEY`: one message, sent once under a campaign key (once/keys.ts), however
// often the command runs: a webhook handler retried, a script run twice, two hosts sharing the
// state folder (docs/sending.md: "One message, once"). The key's record says what was sent and how each
// attempt ended, written before the request leaves and after its answer; the request carries an
// Idempotency-Key made from the key, so a second attempt after an outcome left unknown is one the
// API can tell from a new message.
//
// A later command with the key and the same message (recipients included; `validity` aside, an
// absolute time that --validity 2h makes anew) does, by the last attempt's outcome:
//   accepted      nothing: "already done", exit 0, the first answer printed again
//   unknown       sends the recorded request again, byte for byte, with the same Idempotency-Key
//   (or a process killed before its answer was recorded, which is the same: it may have left)
//   not sent      sends it again, the same way (nothing reached the API)
//   rejected      sends it again, the same way: a 4xx was not processed, and what it objected to
//                 may have been fixed meanwhile (a key, an account's setting); a fixed request is
//                 another message, which needs another key
// Another message under the key is refused (exit 2), quoting what the key was used for.
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { extractMessageIds } from '../http/message-ids.js';
import type { Context } from '../context.js';
import { NotSentError, UsageError } from '../errors.js';
import { waitForLock, type Lock } from '../files/lock.js';
import type { Outcome } from '../http/outcome.js';
import { quoted, redactJson } from '../output/sanitize.js';
import type { Ui } from '../output/ui.js';
import { freeKey, keyedIdempotency, keyedSendRecord, keyUsedBy, type Place } from './keys.js';
import { shellQuote } from '../output/shell.js';
import { ensureParent } from '../files/dirs.js';
import { stateDir } from '../files/state-dir.js';
import { messageDifferences } from '../message/same-message.js';

interface Attempt {
  readonly at: string;
  /** `sending`: written before the request left; replaced by its outcome once the answer came. */
  readonly outcome: 'sending' | Outcome['kind'];
  readonly status?: number | undefined;
  readonly error?: string | undefined;
  /** An accepted answer's body (the key masked), printed again by a later command. */
  readonly body?: unknown;
  readonly text?: string | undefined;
}

interface SendRecord {
  readonly type: 'once-send';
  readonly version: 1;
  readonly key: string;
  readonly createdAt: string;
  readonly idempotencyKey: string;
  /** The request as first sent: what every later attempt sends again. */
  readonly request: Record<string, unknown>;
  readonly attempts: Attempt[];
}

/** What this command does under the key. */
export type OnceSend =
  | { readonly kind: 'done'; readonly at: string; readonly status: number; readonly body: unknown; readonly text: string; readonly request: Record<string, unknown> }
  | {
      readonly kind: 'send';
      readonly idempotencyKey: string;
      /** The request to send: the recorded one when the key has one. */
      readonly request: Record<string, unknown>;
      /** Recorded durably before the request leaves. */
      sending(): void;
      answered(outcome: Outcome): void;
    };

/** How long a command waits for another one sending under the same key (its retries included). */
function waitMs(timeoutMs: number): number {
  return 5 * timeoutMs + 30_000;
}

/**
 * Opens the key's record for this request: "done", or what to send and how to record it. Waits
 * while another process sends under the key (then it reports what that one got), at most
 * waitMs; a dry run only says what a send would do.
 */
export async function openOnceSend(ctx: Context, ui: Ui, o: { readonly key: string; readonly place: Place; readonly request: Record<string, unknown>; readonly dryRun: boolean; readonly timeoutMs: number; readonly apiKey?: string | undefined }): Promise<OnceSend> {
  const state = stateDir(ctx.env, ctx.cwd);
  const path = keyedSendRecord(state, o.place, o.key);
  const used = keyUsedBy(state, o.place, o.key, 'send');
  if (used !== undefined) throw new UsageError(`--once ${o.key} was used by ${used}; a key names one message or campaign; nothing was sent`, { hint: `Give this message a key of its own (e.g. --once ${shellQuote(freeKey(state, o.place, o.key))}).` });
  let lock: Lock | undefined;
  if (!o.dryRun) {
    try {
      ensureParent(path);
    } catch (err) {
      throw new UsageError(`cannot write the record of --once ${o.key} in ${dirname(path)} (${(err as Error).message}); nothing was sent`);
    }
    try {
      lock = await waitForLock(`${path}.lock`, `msgr send --once ${o.key}`, ctx, { timeoutMs: waitMs(o.timeoutMs) });
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      throw new NotSentError(`not sent: another msgr is sending the message of --once ${o.key} and has not finished in ${Math.round(waitMs(o.timeoutMs) / 1000)} s`, { hint: 'It is safe to run the same command again: the key sends the message once.' });
    }
    const held = lock;
    ctx.onExit(() => held.release());
  }
  const record = readRecord(path);
  if (record !== undefined) {
    const diffs = [...messageDifferences(record.request, o.request), ...(canonicalRecipients(record.request) !== canonicalRecipients(o.request) ? ['recipients'] : [])];
    const last = record.attempts[record.attempts.length - 1];
    if (diffs.length > 0) {
      lock?.release();
      throw new UsageError(`--once ${o.key} was used at ${record.createdAt} for ${describeRequest(record.request)} (${describeAttempt(last)}); this command sends another message (${diffs.join(', ')} differ${diffs.length === 1 && diffs[0] !== 'recipients' ? 's' : ''}); nothing was sent`, {
        hint: `A key names one message: give this one a key of its own (e.g. --once ${shellQuote(freeKey(state, o.place, o.key))}).`,
      });
    }
    if (last?.outcome === 'accepted') {
      lock?.release();
      return { kind: 'done', at: last.at, status: last.status ?? 200, body: last.body, text: last.text ?? '', request: record.request };
    }
    const validity = typeof record.request.validity === 'string' ? Date.parse(record.request.validity) : undefined;
    if (validity !== undefined && validity <= ctx.now().getTime()) {
      lock?.release();
      throw new UsageError(`--once ${o.key}: the message's validity (${String(record.request.validity)}) has passed; nothing was sent`, { hint: `Its earlier attempt: ${describeAttempt(last)}. A new message needs a key of its own.` });
    }
    ui.info(`--once ${o.key}: ${describeAttempt(last)}; ${o.dryRun ? 'a send now sends' : 'sending'} it again with the same Idempotency-Key (${record.idempotencyKey}), so the API can tell it is the same message`);
  }
  const rec: SendRecord = record ?? { type: 'once-send', version: 1, key: o.key, createdAt: ctx.now().toISOString(), idempotencyKey: `msgr-${keyedIdempotency(o.place, o.key)}`, request: o.request, attempts: [] };
  return {
    kind: 'send',
    idempotencyKey: rec.idempotencyKey,
    request: rec.request,
    sending: () => {
      if (o.dryRun) return;
      rec.attempts.push({ at: ctx.now().toISOString(), outcome: 'sending' });
      writeRecord(path, rec);
    },
    answered: (outcome) => {
      if (o.dryRun) return;
      const at = ctx.now().toISOString();
      rec.attempts[rec.attempts.length - 1] =
        outcome.kind === 'accepted'
          ? { at, outcome: 'accepted', status: outcome.status, body: redactJson(outcome.body, o.apiKey), text: outcome.body === undefined ? outcome.text : undefined }
          : { at, outcome: outcome.kind, status: outcome.status, error: outcome.message.slice(0, 500) };
      writeRecord(path, rec);
      lock?.release();
    },
  };
}

function canonicalRecipients(request: Record<string, unknown>): string {
  return JSON.stringify(request.recipients ?? null);
}

/** `text "Your order…" from Acme to +447911123456`: what the key was used for. */
function describeRequest(request: Record<string, unknown>): string {
  const body = (request.body ?? {}) as { text?: unknown; templateId?: unknown };
  const what = typeof body.text === 'string' ? `text ${quoted(body.text.length > 40 ? `${body.text.slice(0, 40)}…` : body.text)}` : `template ${String(body.templateId)}`;
  const to = ((request.recipients ?? []) as Array<{ msisdn?: unknown }>).map((r) => String(r.msisdn));
  return `${what}${typeof request.from === 'string' ? ` from ${request.from}` : ''}${to.length > 0 ? ` to ${to.slice(0, 3).join(', ')}${to.length > 3 ? ', …' : ''}` : ''}`;
}

function describeAttempt(a: Attempt | undefined): string {
  if (a === undefined) return 'never sent';
  const status = a.status !== undefined ? ` (HTTP ${a.status})` : '';
  switch (a.outcome) {
    case 'accepted':
      return `accepted at ${a.at}${status}`;
    case 'sending':
      return `the attempt at ${a.at} recorded no answer (its process ended first): its outcome is unknown`;
    case 'unknown':
      return `the attempt at ${a.at} got no answer${status}: its outcome is unknown`;
    case 'not-sent':
      return `the attempt at ${a.at} was not sent${status}`;
    default:
      return `the attempt at ${a.at} was refused by the API${status}${a.error !== undefined ? `: ${a.error}` : ''}`;
  }
}

function readRecord(path: string): SendRecord | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const rec = JSON.parse(text) as SendRecord;
    if (rec.type === 'once-send' && Array.isArray(rec.attempts)) return rec;
  } catch {
    // Torn? It is written aside and renamed: only another program's file.
  }
  throw new UsageError(`${path} is not msgr's record of a --once message; nothing was sent`, { hint: 'Move it away if it is not yours to keep; msgr writes these records itself.' });
}

/** Written aside, flushed and renamed: a record is never half written, and it is on disk before the request leaves. */
function writeRecord(path: string, rec: SendRecord): void {
  const tmp = `${path}.new`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(rec)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** A message `send --once` got accepted: to whom, when, for which account (`msgr optout violations`). */
export interface OnceSent {
  readonly key: string;
  readonly record: string;
  readonly at: string;
  readonly account: string | undefined;
  readonly numbers: readonly string[];
  readonly messageIds: ReadonlyArray<string | undefined>;
}

/** Every accepted `send --once` record of the state folder (the sandbox's with `sandbox`); one that cannot be read is passed over. */
export function acceptedOnceSends(state: string, sandbox: boolean): OnceSent[] {
  const dir = join(sandbox ? join(state, 'sandbox') : state, 'once');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const out: OnceSent[] = [];
  for (const f of files) {
    let rec: SendRecord | undefined;
    try {
      rec = readRecord(join(dir, f));
    } catch {
      continue;
    }
    const accepted = rec?.attempts.find((a) => a.outcome === 'accepted');
    if (rec === undefined || accepted === undefined) continue;
    const numbers = ((rec.request.recipients ?? []) as Array<{ msisdn?: unknown }>).flatMap((r) => (typeof r.msisdn === 'string' ? [r.msisdn] : []));
    const account = typeof rec.request.accountReference === 'string' ? rec.request.accountReference : undefined;
    out.push({ key: rec.key, record: join(dir, f), at: accepted.at, account, numbers, messageIds: extractMessageIds(accepted.body, numbers) });
  }
  return out;
}
