// `msgr optout violations`: anyone msgr messaged after they opted out (docs/optouts.md:
// "Violations"). Every recipient of a batch the API accepted, in every run's journal, and every
// accepted `send --once` message, is checked against the store of the account it was sent for
// (and the one for every account) as it stood when the request left: the store keeps every
// change, so an opt-out taken back later still counts for the messages sent while it held.
// Findings go to stdout, one line each, and nothing when there are none, so that cron mails
// exactly when there is something to read; the exit code is 0 either way, as for `optout check`
// (docs/contract.md: "Events and opt-outs").
import type { Context } from '../../../context.js';
import { messaged } from '../../../bulk/runs-door.js';
import { stateDir } from '../../../files/state-dir.js';
import { acceptedOnceSends } from '../../../once/one-message.js';
import { describeOptOut, openOptOuts, optOutAccount, type OptOutEntry, type OptOuts } from '../../../optouts/store.js';
import type { Ui } from '../../../output/ui.js';
import { formatCount } from '../../../output/count.js';
import { showControls } from '../../../output/sanitize.js';
import { lineWidth, wrap } from '../../../output/wrap.js';
import { optoutTarget } from '../shared.js';
import type { ViolationsOptions } from './options.js';

export interface Violation {
  readonly number: string;
  readonly messagedAt: string;
  readonly account: string | null;
  /** The run that messaged the number; null for a `send --once` message. */
  readonly run: { readonly runId: string; readonly journal: string; readonly line: number | null; readonly includedOptedOut: boolean } | null;
  readonly once: { readonly key: string; readonly record: string } | null;
  readonly messageId: string | null;
  readonly optOut: { readonly since: string; readonly source: string; readonly evidence: OptOutEntry['evidence'] | null };
  /**
   * A batch first sent before the opt-out and sent again after it (--resend-in-doubt) under the
   * same Idempotency-Key: the accepted answer may be the API's replay of the first request, not a
   * new message. Null: a message sent after the opt-out, the first time.
   */
  readonly resend: { readonly firstSentAt: string; readonly idempotencyKey: string | null } | null;
  /** For people: what the opt-out was. */
  readonly why: string;
}

export interface ViolationsQuery {
  /** Only the sends for this account (undefined: every account's). */
  readonly account: string | undefined;
  /** The sandbox's runs and --once messages instead of the real ones. */
  readonly sandbox: boolean;
  readonly json: boolean;
}

/** `msgr optout violations` as the command runs it: the account, then its sends checked. */
export async function runOptoutViolations(ctx: Context, opts: ViolationsOptions): Promise<void> {
  const { ui, account } = await optoutTarget(ctx, 'violations', opts);
  // Without an account named (or with --all-accounts): every account's sends, each against its own store.
  await runViolations(ctx, ui, { account, sandbox: opts.sandbox, json: opts.json });
}

export async function runViolations(ctx: Context, ui: Ui, o: ViolationsQuery): Promise<void> {
  const state = stateDir(ctx.env, ctx.cwd);
  const stores = new Map<string, OptOuts>();
  const storeOf = (account: string | undefined): OptOuts => {
    const key = account ?? '';
    let s = stores.get(key);
    if (s === undefined) {
      s = openOptOuts(state, account, ctx);
      stores.set(key, s);
    }
    return s;
  };
  // An opt-out in force when the message left. Undeliverable numbers are money spent, not consent
  // broken: they are no violation.
  const optedOut = (store: OptOuts, number: string, at: string): OptOutEntry | undefined => {
    const e = store.optedOutAt(number, new Date(at));
    return e !== undefined && e.reason === 'opt-out' ? e : undefined;
  };
  const found: Violation[] = [];
  const optOutOf = (e: OptOutEntry): Violation['optOut'] => ({ since: e.since, source: e.source, evidence: e.evidence ?? null });
  const checked = await messaged(ctx, o.sandbox, (run, m) => {
    const account = optOutAccount(run.header.message.accountReference, o.sandbox);
    if (o.account !== undefined && account !== o.account) return;
    const e = optedOut(storeOf(account), m.number, m.at);
    if (e === undefined) return;
    const includedOptedOut = run.header.optOuts?.store === 'included';
    const resend = m.firstAt < m.at && optedOut(storeOf(account), m.number, m.firstAt) === undefined ? { firstSentAt: m.firstAt, idempotencyKey: m.idempotencyKey ?? null } : null;
    found.push({ number: m.number, messagedAt: m.at, account: account ?? null, run: { runId: run.runId, journal: run.journal, line: m.line ?? null, includedOptedOut }, once: null, messageId: m.messageId ?? null, optOut: optOutOf(e), resend, why: describeOptOut(e) });
  });
  const once = acceptedOnceSends(state, o.sandbox);
  for (const s of once) {
    const account = optOutAccount(s.account, o.sandbox);
    if (o.account !== undefined && account !== o.account) continue;
    s.numbers.forEach((number, i) => {
      const e = optedOut(storeOf(account), number, s.at);
      if (e === undefined) return;
      found.push({ number, messagedAt: s.at, account: account ?? null, run: null, once: { key: s.key, record: s.record }, messageId: s.messageIds[i] ?? null, optOut: optOutOf(e), resend: null, why: describeOptOut(e) });
    });
  }
  found.sort((a, b) => a.messagedAt.localeCompare(b.messagedAt) || a.number.localeCompare(b.number));
  const where = `${formatCount(checked.runs)} ${o.sandbox ? 'sandbox ' : ''}run${checked.runs === 1 ? '' : 's'} and ${formatCount(once.length)} --once message${once.length === 1 ? '' : 's'}${o.account !== undefined ? ` of account ${o.account}` : ''}`;
  if (checked.unreadable > 0) ui.warn(`${formatCount(checked.unreadable)} journal${checked.unreadable === 1 ? '' : 's'} could not be read and ${checked.unreadable === 1 ? 'was' : 'were'} not checked (msgr runs list)`);
  if (o.json) {
    ctx.stdout.write(`${JSON.stringify({ violations: found.map(({ why: _why, ...v }) => v), checked: { runs: checked.runs, onceMessages: once.length, unreadable: checked.unreadable, sandbox: o.sandbox, account: o.account ?? null } }, null, 2)}\n`);
  } else {
    for (const v of found) {
      const by = v.run !== null ? `run ${v.run.runId}${v.run.line !== null ? ` line ${v.run.line}` : ''}${v.run.includedOptedOut ? ' (--include-opted-out)' : ''}` : `--once ${v.once?.key ?? ''}`;
      const replay = v.resend !== null ? ` (a resend, under the same Idempotency-Key, of a request first sent ${v.resend.firstSentAt}, before the opt-out: possibly the API's replay of that one, not a new message)` : '';
      ctx.stdout.write(`${wrap(showControls(`${v.number}  messaged ${v.messagedAt} by ${by}${v.messageId !== null ? `, message id ${v.messageId}` : ''}${replay}: ${v.why}`), lineWidth(ctx.stdout), { hang: v.number.length + 2 })}\n`);
    }
  }
  if (found.length === 0) ui.info(`no one was messaged after opting out (checked ${where})`);
  else {
    const resends = found.filter((v) => v.resend !== null).length;
    ui.warn(`${formatCount(found.length)} message${found.length === 1 ? ' was' : 's were'} sent to numbers that had opted out${resends > 0 ? ` (${formatCount(resends)} of them resends of requests first sent before the opt-out, under the same Idempotency-Key: possibly replays)` : ''} (checked ${where})`);
  }
}
