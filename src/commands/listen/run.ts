// `msgr listen`: account → token → events file → opt-outs → receiver → forwarder → terminal, then
// until Ctrl-C or SIGTERM; SIGHUP opens the events file again (docs/events.md: "msgr listen").
import { dirname, resolve } from 'node:path';
import type { Context } from '../../context.js';
import { accountFile, NO_ACCOUNT } from '../../files/account-files.js';
import { isLoopbackHost } from '../../http/endpoint.js';
import { Dedup, DEFAULT_WINDOW_MS } from '../../events/dedup.js';
import { EventLog } from '../../events/event-log.js';
import { classifyReply, keywords } from '../../optouts/keywords.js';
import { HEADERS_TIMEOUT_MS, startListener, type Received } from '../../events/receiver.js';
import { clock, eventJson, eventLine, type OptOutNote } from '../../events/terminal.js';
import { checkToken, keptToken, webhookUrl } from '../../events/token.js';
import { optOutStorePath } from '../../optouts/store.js';
import { showControls } from '../../output/sanitize.js';
import { createUi, quitAtOnce, stopName, type Ui } from '../../output/ui.js';
import { lineWidth, wrap } from '../../output/wrap.js';
import { resolveAccount } from '../shared/account.js';
import type { ListenOptions } from './options.js';
import type { OptOutHook } from './opt-out-replies.js';
import { forwardWarnings, type ForwardTarget, type Hook } from '../../events/forward.js';
import { shellQuote } from '../../output/shell.js';
import { ensureDir, FOR_LISTENING } from '../../files/dirs.js';
import { makePrivate, privateWarning, together, type Tightened } from '../../files/private.js';
import { stateDir } from '../../files/state-dir.js';

/** How long answers in flight may take to finish once a stop begins. */
export const LISTEN_DRAIN_MS = 5_000;
// Cheap: the state folder is read only once receipts are overdue, and then once per quiet spell.
const MONITOR_MS = 1_000;

export async function runListen(ctx: Context, opts: ListenOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  const state = stateDir(ctx.env, ctx.cwd);
  const { account, source, defaultCountry } = await resolveAccount(ctx, opts);
  let token = opts.token;
  let madeToken: string | undefined;
  const tokenFile = accountFile(state, 'events', account, 'token');
  // The token lets anyone post receipts and STOPs, the state folders hold them: private, however
  // they were made before; said once, with the events file's mode below.
  const stateModes = makePrivate([
    [state, 0o700],
    [dirname(tokenFile), 0o700],
    [tokenFile, 0o600],
  ]);
  if (token === undefined) {
    const kept = keptToken(tokenFile);
    token = kept.token;
    if (kept.created) madeToken = tokenFile;
  } else {
    checkToken(token, '--token');
  }
  const sayModes = (t: Tightened): void => {
    const line = privateWarning(t, 'the listener\'s token, events or their folders', 'If others could read the token, make a new one (remove the token file; msgr makes another) and give the provider the new URL.');
    if (line !== undefined) ui.warn(line);
  };
  if (opts.printToken || opts.printUrl) {
    sayModes(stateModes);
    ctx.stdout.write(`${opts.printToken ? token : webhookUrl(opts.host, opts.port, token)}\n`);
    return;
  }

  const out = opts.out !== undefined ? resolve(ctx.cwd, opts.out) : accountFile(state, 'events', account, 'jsonl');
  const dedup = new Dedup(opts.dedupWindowMs ?? DEFAULT_WINDOW_MS);
  const startMs = Date.now();
  let existing = 0;
  const { log, tornBytes, tornKind, tornAside, mended, tightened } = await EventLog.open(out, ctx, {
    command: 'msgr listen',
    // What is in the file already was answered for: a sender's retry of it is a duplicate.
    onExisting: (line) => {
      try {
        const r = JSON.parse(line) as { key?: unknown; receivedAt?: unknown };
        if (typeof r.key !== 'string' || typeof r.receivedAt !== 'string') return;
        existing++;
        dedup.remember(r.key, Date.parse(r.receivedAt), undefined, startMs);
      } catch {
        // Not a record: the readers skip it too.
      }
    },
  });
  // Rotation (docs/events.md: "Rotating the events file"): SIGHUP opens the file at the path
  // again; a path found naming another file, or none, after a flush is warned about once.
  let rotationWarned = false;
  log.onReopened = (r) => {
    if (r.why === 'signal') {
      ui.info(r.same === true ? `SIGHUP: ${out} is still the file being written; nothing to reopen` : `SIGHUP: opened ${out} again; new events go there`);
    } else if (!rotationWarned) {
      rotationWarned = true;
      const what = r.why === 'truncated' ? 'was cut short' : r.why === 'removed' ? 'was removed' : 'was moved or replaced';
      ui.warn(`${out} ${what} while msgr listen was writing it; it writes ${r.why === 'truncated' ? 'at its new end' : 'to a new file at that path'}, so every event it acknowledges is there. After rotating the file, send msgr listen SIGHUP.`);
    } else {
      ui.info(`  ${out} was ${r.why === 'truncated' ? 'cut short' : 'moved or removed'} again: writing to the file at that path`);
    }
  };
  ctx.onHangup(() => log.reopen());
  let hook: OptOutHook | undefined;
  try {
    if (opts.optouts !== undefined) {
      const { optOutHook } = await import('./opt-out-replies.js');
      const plain = opts.optouts !== true;
      const path = plain ? resolve(ctx.cwd, opts.optouts) : optOutStorePath(state, account);
      if (!plain) ensureDir(resolve(path, '..'), FOR_LISTENING);
      hook = optOutHook(ctx, { ...opts, defaultCountry, path, plain, storePath: optOutStorePath(state, account), account, warn: (line) => ui.warn(line) });
    }
  } catch (err) {
    await log.close();
    throw err;
  }

  const stopWords = hook === undefined ? keywords() : undefined;
  let lastEventMs: number | undefined;
  let lastReceiptMs = startMs;
  let stopHinted = false;
  const forwardedNotes: Notes = { refused401: 0, refused413: 0, unavailable: 0, lastWarn: 0, errors: 0, lastError: 0 };
  const show = (ev: Received): void => {
    // Taken whether shown or not, so that no note is left behind.
    let note: OptOutNote | undefined = hook?.noteFor(ev.record.id);
    if (!ev.first) {
      if (ui.verbose) ui.debug(showControls(`${clock(ev.record.receivedAt)}  duplicate (recorded before as ${ev.record.key.slice(0, 60)})`));
      return;
    }
    lastEventMs = Date.now();
    if (ev.summary.kind === 'delivery') lastReceiptMs = lastEventMs;
    // A stop word with --optouts off: said once, so nobody believes it was recorded.
    if (note === undefined && stopWords !== undefined && !stopHinted && ev.summary.kind === 'inbound' && ev.summary.text !== undefined && classifyReply(ev.summary.text, stopWords)?.kind === 'stop') {
      note = 'stop-ignored';
      stopHinted = true;
    }
    let line: string | undefined;
    try {
      line = opts.json ? eventJson(ev.record, ev.summary, ev.parsed, note) : opts.quiet ? undefined : wrap(eventLine(ev.record, ev.summary, note), lineWidth(ctx.stdout), { hang: 10 });
    } catch (err) {
      // A printer's bug must not cost the line: the event is stored and answered, so it is shown.
      failed(ui, forwardedNotes, err);
      line = opts.json ? JSON.stringify({ id: ev.record.id, receivedAt: ev.record.receivedAt, kind: ev.summary.kind, path: ev.record.path, event: null, body: ev.record.body ?? null }) : opts.quiet ? undefined : showControls(`${clock(ev.record.receivedAt)}  event  ${ev.record.id}`);
    }
    if (line !== undefined) ctx.stdout.write(`${line}\n`);
  };

  const listener = await startListener({
    host: opts.host,
    port: opts.port,
    token,
    log,
    dedup,
    fields: opts.fields,
    ...(opts.maxBodyBytes !== undefined ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    ...(hook !== undefined ? { afterStore: hook.afterStore } : {}),
    onEvent: show,
    onRefused: (status, why) => refused(ui, forwardedNotes, status, why),
    onError: (err) => failed(ui, forwardedNotes, err),
  }).catch(async (err: unknown) => {
    await log.close();
    throw err;
  });
  ctx.enableGracefulInterrupt();

  const url = webhookUrl(opts.host, listener.port, token);
  ui.info(`msgr listen: receiving on ${url}`);
  if (madeToken !== undefined) ui.info(`  a new token was made and kept in ${madeToken}: give this URL to your provider (msgr listen --print-url prints it)`);
  if (!isLoopbackHost(opts.host)) {
    ui.warn(`listening on ${opts.host}: reachable from other machines. Only requests carrying the token are recorded, but it travels over plain HTTP: put TLS in front (a reverse proxy or a tunnel).`);
  }
  ui.info(`  events are saved to ${out}${existing > 0 ? ` (${existing} there already)` : ''}`);
  ui.info(`  account: ${account ?? `none (${source}): the ${NO_ACCOUNT} files`}`);
  if (hook !== undefined) ui.info(`  opt-outs: a reply with a stop word adds its sender to ${hook.where}; one that may ask to stop is kept as a possible opt-out${opts.allowStart ? '; a start word takes them off' : ''}${opts.undeliverable ? '; a permanent failure adds its number as undeliverable' : ''}`);
  if (tornKind === 'json') ui.warn(`the last line of ${out} (${tornBytes} bytes, with no newline at its end) is JSON but not an event msgr recorded (a hand edit, another program): moved to ${tornAside ?? 'a file beside it'} as it was, so that the events file holds only events`);
  else if (tornBytes > 0) ui.warn(`cut an unfinished last line (${tornBytes} bytes) off ${out}, kept in ${tornAside ?? 'a file beside it'}: an event being written when the listener was stopped; it was never answered, so its sender sends it again`);
  if (mended) ui.info(`  the last event in ${out} had no newline at its end (a hand edit, another program): kept, and its newline added`);
  sayModes(together(stateModes, tightened));

  if (opts.forwardTo !== undefined) for (const line of forwardWarnings(opts.forwardTo, opts.forwardToInArgv, 'MSGR_FORWARD_TO')) ui.warn(line);
  const forwarder = opts.forwardTo === undefined ? undefined : await startForwarding(ui, (await ctx.http()).hook, opts.forwardTo, out, log);
  ui.info(`Ctrl-C to stop`);

  const monitor = setInterval(() => watch(ctx, ui, state, { lastEventMs, lastReceiptMs, startMs, warnAfterMs: opts.warnAfterMs }, idle), MONITOR_MS);
  monitor.unref();
  const idle = { warned: false, nextIdleMs: 60_000 };

  await new Promise<void>((done) => {
    if (ctx.interrupt.aborted) done();
    else ctx.interrupt.addEventListener('abort', () => done(), { once: true });
  });
  clearInterval(monitor);
  ui.info(`${stopName(ctx.interrupt.reason)}: answering the requests in flight (at most ${LISTEN_DRAIN_MS / 1000} s); ${quitAtOnce(ctx.interrupt.reason)}`);
  await listener.close(LISTEN_DRAIN_MS);
  await forwarder?.stop();
  const s = listener.stats();
  const parts = [`${s.recorded} event${s.recorded === 1 ? '' : 's'} recorded`, `${s.duplicates} duplicate${s.duplicates === 1 ? '' : 's'}`];
  if (s.refused > 0) parts.push(`${s.refused} refused`);
  if (s.unavailable > 0) parts.push(`${s.unavailable} answered 503 (not stored)`);
  if (s.idleCapped + s.idleTimedOut > 0) parts.push(`${s.idleCapped + s.idleTimedOut} connection${s.idleCapped + s.idleTimedOut === 1 ? '' : 's'} closed without a request (${s.idleCapped} over the caps, ${s.idleTimedOut} after ${HEADERS_TIMEOUT_MS / 1000} s)`);
  if (forwarder !== undefined) parts.push(`${forwarder.delivered} forwarded${forwarder.skipped > 0 ? `, ${forwarder.skipped} refused by the app` : ''}`);
  ui.info(`msgr listen stopped: ${parts.join(', ')}; ${out}`);
}

interface Notes {
  refused401: number;
  refused413: number;
  unavailable: number;
  lastWarn: number;
  errors: number;
  lastError: number;
}

function refused(ui: Ui, n: Notes, status: number, why: string): void {
  if (status === 503) {
    n.unavailable++;
    const now = Date.now();
    // At most one warning every 10 s, with the count since the last.
    if (now - n.lastWarn >= 10_000) {
      ui.warn(`answered 503 (${n.unavailable} so far): ${showControls(why)}. Senders keep such events and retry; free the disk and they arrive.`);
      n.lastWarn = now;
    }
    return;
  }
  if (status === 401) {
    n.refused401++;
    if (n.refused401 === 1) ui.warn(`refused a request without the listener's token (401, not recorded): is the URL the provider posts to the one \`msgr listen --print-url\` prints?`);
    else ui.debug(`401: ${showControls(why)}`);
    return;
  }
  if (status === 413) {
    n.refused413++;
    if (n.refused413 === 1) ui.warn(`refused a body that can never be stored (413, final: a sender does not retry it): ${showControls(why)}`);
    else ui.debug(`413: ${showControls(why)}`);
    return;
  }
  ui.debug(`${status}: ${showControls(why)}`);
}

/**
 * An error of msgr's own while taking a request, answered 503: one line each (at most one every
 * 10 s, with the count), its stack with -v. The error may quote what the sender sent.
 */
function failed(ui: Ui, n: Notes, err: unknown): void {
  n.errors++;
  const now = Date.now();
  if (now - n.lastError < 10_000) return;
  n.lastError = now;
  const e = err instanceof Error ? err : new Error(String(err));
  ui.warn(`answered 503 after an error in msgr (${n.errors} so far): ${showControls(`${e.name}: ${e.message}`)}. The sender keeps the event and retries; if it recurs, please report it with the output of -v.`);
  if (e.stack !== undefined) ui.debug(showControls(e.stack));
}

async function startForwarding(ui: Ui, hook: Hook, target: ForwardTarget, out: string, log: EventLog): Promise<import('../../events/forward.js').Forwarder> {
  const { Forwarder, cursorPath, FORWARD_ATTEMPTS } = await import('../../events/forward.js');
  let failing = false;
  const again = (id: string): string => `msgr listen replay --filter id=${id} --forward-to ${shellQuote(target.shown)}${target.shown.includes('***') ? ' (with your URL\'s password and secrets in place of ***)' : ''}`;
  const forwarder = new Forwarder({
    file: out,
    target,
    hook,
    cursorFile: cursorPath(out, target.url),
    startOffset: log.size,
    onResult: (r) => {
      const what = showControls(r.status !== undefined ? `${r.status}` : r.error ?? 'no answer');
      const id = showControls(r.record.id);
      if (r.ok) {
        if (failing) ui.info(`  the app answers again: ${what}`);
        failing = false;
        ui.info(`  → app ${what} (${Math.round(r.ms)} ms) ${id}`);
      } else if (r.skipped === 'refused') {
        ui.warn(`the app refused ${id} ${r.attempt} times (${what}); passed over. It stays in the events file: ${again(id)}`);
      } else if (r.skipped === 'attempts') {
        ui.warn(`the app did not take ${id} in ${FORWARD_ATTEMPTS} attempts (the last: ${what}); gave up on it and went on with the next. It stays in the events file: ${again(id)}`);
      } else if (r.skipped === 'path') {
        ui.warn(`not forwarded: ${id}'s path would leave the --forward-to path (${showControls(r.record.path)}); passed over. It stays in the events file.`);
      } else if (!failing || r.attempt === 1) {
        failing = true;
        ui.warn(`the app at ${target.shown} did not take ${id} (${what}); retrying with backoff, ${FORWARD_ATTEMPTS} attempts in all. Events wait in the file, none is lost.`);
      }
    },
  });
  log.onFlushed = () => forwarder.notify();
  const warn = log.onReopened;
  log.onReopened = (r) => {
    if (r.ino !== undefined) forwarder.follow(r.ino);
    warn?.(r);
  };
  forwarder.start();
  ui.info(`  forwarding each event to ${target.shown}${forwarder.offset < log.size ? ' (starting with the events not forwarded before)' : ''}`);
  return forwarder;
}

/** Every MONITOR_MS: the warning when receipts do not come while a run sends, and on a terminal, how long it has been quiet. */
function watch(ctx: Context, ui: Ui, state: string, t: { lastEventMs: number | undefined; lastReceiptMs: number; startMs: number; warnAfterMs: number }, idle: { warned: boolean; nextIdleMs: number }): void {
  const now = Date.now();
  const silentFor = now - t.lastReceiptMs;
  if (silentFor < t.warnAfterMs) {
    idle.warned = false;
  } else if (!idle.warned) {
    void import('../../bulk/runs-door.js').then(({ sendingRuns }) => {
      const runs = sendingRuns(ctx);
      if (runs.length === 0 || idle.warned) return;
      idle.warned = true;
      const run = runs[0];
      const which = run === undefined ? '' : ` (${run.file ?? run.journal}, pid ${run.owner.pid}${run.sandbox ? ', sandbox' : ''})`;
      ui.warn(`${runs.length === 1 ? 'a send-bulk run is' : `${runs.length} send-bulk runs are`} sending${which} and no delivery receipt has come for ${silentFor < 120_000 ? `${Math.round(silentFor / 1000)} s` : `${Math.round(silentFor / 60_000)} min`}: check that the provider posts to this listener's URL (msgr listen --print-url)`);
    }).catch(() => undefined);
  }
  // On a terminal: how long it has been quiet, at 1, 2, 4, 8 … minutes.
  if (ctx.stderr.isTTY === true && !ui.quiet) {
    const quietFor = now - (t.lastEventMs ?? t.startMs);
    if (quietFor < 60_000) idle.nextIdleMs = 60_000;
    else if (quietFor >= idle.nextIdleMs) {
      ui.info(ui.color.dim(`· no events for ${Math.round(quietFor / 60_000)} min${t.lastEventMs !== undefined ? ` (the last at ${clock(new Date(t.lastEventMs).toISOString())})` : ''}`));
      idle.nextIdleMs *= 2;
    }
  }
}
