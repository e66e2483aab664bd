// `msgr listen replay`: saved events, chosen by time and filters, listed or sent again to an app
// as they were received (docs/events.md: "Forwarding and replay").
import { resolve } from 'node:path';
import type { Context } from '../../../context.js';
import { InterruptedError, PartialError } from '../../../errors.js';
import { accountFile } from '../../../files/account-files.js';
import { getPath, nameKey, summarise, type EventSummary } from '../../../events/fields.js';
import { backoffMs, forwardOnce, forwardWarnings, isDelivered, worthRetrying, type ForwardAttempt } from '../../../events/forward.js';
import { readEventsFile } from '../../../events/read.js';
import { parseEventBody, type EventRecord } from '../../../events/saved-event.js';
import { eventJson, eventLine } from '../../../events/terminal.js';
import { showControls } from '../../../output/sanitize.js';
import { createUi } from '../../../output/ui.js';
import { lineWidth, wrap } from '../../../output/wrap.js';
import { resolveAccount } from '../../shared/account.js';
import type { ReplayOptions } from './options.js';
import { stateDir } from '../../../files/state-dir.js';

/** Attempts per event: a replay is run by a person, who sees what failed and can run it again. */
const ATTEMPTS = 4;

/** The value a filter key names: one of the summary's fields, msgr's own, or a dotted path into the event. */
function valueOf(key: string, record: EventRecord, s: EventSummary, parsed: unknown): string | undefined {
  switch (nameKey(key)) {
    case 'kind':
      return s.kind;
    case 'status':
      return s.status;
    case 'state':
      return s.state;
    case 'number':
      return s.number;
    case 'messageid':
      return s.messageId;
    case 'eventid':
      return s.eventId;
    case 'id':
      return record.id;
    case 'path':
      return record.path;
    case 'text':
      return s.text;
    default: {
      const v = getPath(parsed, key);
      return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
    }
  }
}

export async function runReplay(ctx: Context, opts: ReplayOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  let file: string;
  if (opts.events !== undefined) {
    file = resolve(ctx.cwd, opts.events);
  } else {
    const { account } = await resolveAccount(ctx, opts);
    file = accountFile(stateDir(ctx.env, ctx.cwd), 'events', account, 'jsonl');
  }
  const since = opts.since?.getTime();
  const until = opts.until?.getTime();
  const target = opts.forwardTo;
  if (target !== undefined) {
    for (const line of forwardWarnings(target, false)) ui.warn(line);
    ctx.enableGracefulInterrupt();
  }
  // Each event goes out through the Context's HTTP (docs/design.md: "HTTP").
  const hook = target !== undefined ? (await ctx.http()).hook : undefined;
  let matched = 0;
  let delivered = 0;
  const failed: string[] = [];
  let stopped = false;
  const read = await readEventsFile(file, async (record) => {
    if (stopped) return;
    const at = Date.parse(record.receivedAt);
    if ((since !== undefined && at < since) || (until !== undefined && at >= until)) return;
    const parsed = parseEventBody(record);
    const s = summarise(parsed, opts.fields);
    for (const f of opts.filters) {
      const v = valueOf(f.key, record, s, parsed);
      if (v === undefined || !f.values.some((want) => want.toLowerCase() === v.toLowerCase())) return;
    }
    matched++;
    if (target === undefined || hook === undefined) {
      ctx.stdout.write(`${opts.json ? eventJson(record, s, parsed) : wrap(eventLine(record, s), lineWidth(ctx.stdout), { hang: 10 })}\n`);
      return;
    }
    if (ctx.interrupt.aborted) {
      stopped = true;
      return;
    }
    let a: ForwardAttempt = { ms: 0 };
    let attempts = 0;
    for (; attempts < ATTEMPTS; ) {
      a = await forwardOnce(hook, record, target);
      attempts++;
      if (isDelivered(a) || !worthRetrying(a) || attempts === ATTEMPTS || ctx.interrupt.aborted) break;
      await new Promise((r) => setTimeout(r, backoffMs(attempts)));
    }
    const ok = isDelivered(a);
    if (ok) delivered++;
    else failed.push(record.id);
    const what = a.status !== undefined ? String(a.status) : (a.error ?? 'no answer');
    if (opts.json) ctx.stdout.write(`${JSON.stringify({ id: record.id, receivedAt: record.receivedAt, ok, status: a.status ?? null, error: a.error ?? null, attempts, ms: Math.round(a.ms) })}\n`);
    else if (!opts.quiet) ctx.stdout.write(`${wrap(`${eventLine(record, s)}  → ${showControls(what)}${attempts > 1 ? ` after ${attempts} attempts` : ''}`, lineWidth(ctx.stdout), { hang: 10 })}\n`);
  });
  if (read.skipped > 0) ui.warn(`${read.skipped} line${read.skipped === 1 ? '' : 's'} of ${file} ${read.skipped === 1 ? 'is' : 'are'} not an event and ${read.skipped === 1 ? 'was' : 'were'} passed over`);
  if (target === undefined) {
    ui.info(`${matched} of ${read.records} saved event${read.records === 1 ? '' : 's'} match${matched === 1 ? 'es' : ''} (${file})`);
    return;
  }
  const summary = `${delivered} of ${matched} event${matched === 1 ? '' : 's'} taken by ${target.shown}`;
  if (stopped) throw new InterruptedError(`interrupted: ${summary}`, { hint: 'Run the same command again with --since set to where it stopped, or filter by id.' });
  if (failed.length > 0) {
    throw new PartialError(`${summary}; ${failed.length} not (${failed.slice(0, 3).map(showControls).join(', ')}${failed.length > 3 ? ', …' : ''})`, {
      hint: `Send them again once the app takes them: ${failed.length <= 20 ? `the same command with --filter id=${failed.map(showControls).join(',')}` : 'the same command'}.`,
    });
  }
  ui.success(summary);
}
