// src/bulk/display/: what the user sees of a run. summary.ts (this file) prints the preflight's
// lines, the summary and the --json document, and makes the error that gives the exit code;
// preview.ts shows --preview and --dry-run; spend.ts what a run may spend (--limit, the cost
// estimate, --max-cost, --gsm-safe, --mobile-only). It may import every folder of the engine but
// stages/.
//
// What a bulk run tells at the end: the preflight's lines, the summary (for people on stderr, and
// the --json document), the command that resumes the run, and the error that gives the exit code.
// See docs/campaign-output.md: "Output", and docs/contract.md: "Exit codes".
import { AuthError, ExitCode, InterruptedError, NotSentError, PartialError, UsageError, WindowClosedError, type MsgrError } from '../../errors.js';
import type { ScheduleRecord } from '../../schedule/index.js';
import { withoutNothingSent, wrongAddressHint } from '../../http/outcome.js';
import type { Ui } from '../../output/ui.js';
import type { NumberColumnChoice } from '../../csv/header.js';
import { invalidRowsHint, nothingToSend, type PreflightResult } from '../preflight/range.js';
import { formatGroups } from '../preflight/problems.js';
import { describeChar, type TextAnalysis } from '../../message/segments.js';
import type { TextTotals, TextTotalsJson } from '../../message/text-totals.js';
import { MAX_CONSECUTIVE_FAILURES, type SendResult, type StopReason } from '../send-pass/accounting.js';
import { describeSkipped, notDeliveredLeftOut, type SentNumbers } from '../earlier/already-sent.js';
import type { LeaveOutProbe } from '../input/exclude.js';
import { isInDoubt } from '../journal/records.js';
import type { OutcomeTotals } from '../journal/load.js';
import type { Run } from '../this-run/open.js';
import type { RepeatedNumber, RepeatMode } from '../preflight/repeats.js';
import { formatBytes, formatCount } from '../../output/count.js';
import type { SpendSummary } from './spend.js';
import { FLAG } from '../flag-names.js';

/** The --json document of a run, and the figures the summary lines are made of. */
export interface Summary {
  runId: string | null;
  file: string;
  journal: string | null;
  report: string | null;
  dryRun: boolean;
  /** The column the numbers were read from, and how it was chosen (src/csv/header.ts). */
  numberColumn: NumberColumnChoice;
  rows: number;
  valid: number;
  invalid: number;
  duplicates: number;
  /** Numbers on rows with different messages (bulk/preflight/repeats.ts). */
  differentMessages: number;
  excluded: number;
  /** Left out because the number is in the account's opt-out store (docs/optouts.md: "Sending"). */
  suppressed: number;
  /** The opt-out store: left out or included, whose, how many numbers it has. */
  optOuts?: OptOutStoreSummary;
  /** Left out because an earlier run accepted the number (--skip-sent, --restart). */
  alreadySent: number;
  /** Rows to send with a number outside the known plan (sent only with --allow-unlisted-numbers). */
  outsidePlan: number;
  /** Rows to send whose number is a fixed line by its numbering plan, and the first lines of them. */
  landlines: { count: number; lines: number[] };
  toSend: number;
  requests: number;
  batchSize: number;
  text: { encoding: string; partsPerMessage: number; parts: number; forcing: string[] } | null;
  /** The parts of the messages to send, when rows have messages of their own. */
  messages?: TextTotalsJson | null;
  problems: Array<{ line: number; column: string; message: string }>;
  /** Every invalid row counted under its cause, with the first lines of each. */
  causes: Array<{ cause: string; column: string; count: number; lines: number[] }>;
  /** A dry run, preview or sample beside an unfinished run of the file: that run's id. */
  unfinishedRun?: string;
  /** What each recipient's request carries: `msisdn`, `variables.NAME`, `metaData.NAME` (bulk/report/report-file.ts requestFields). */
  requestFields?: string[];
  /** Under --once: an earlier run under another key that read the same data (bulk/earlier/campaign-key.ts sameDataJson). */
  sameData?: Record<string, unknown>;
  /** What this command may spend (--limit): display/spend.ts. */
  spend?: SpendSummary;
  /** Send windows and deadlines (docs/send-windows.md); null: any time. */
  schedule?: ScheduleRecord | null;
}

/** The opt-out store as a run used it. */
export interface OptOutStoreSummary {
  /** `left-out` (the default) or `included` (--include-opted-out). */
  store: 'left-out' | 'included';
  /** The account whose store it is; null: none known (the store for every account alone). */
  account: string | null;
  /** Numbers in it (the account's and those for every account). */
  numbers: number;
  files: string[];
}

/** The summary once the send pass is over. */
export interface SentSummary extends Summary {
  /** Left out because they went on the --exclude list after the run started (not in accepted, not sent). */
  excludedAfterStart: number;
  /** Left out because they went into the opt-out store after the run started (not in accepted, not sent). */
  suppressedAfterStart: number;
  accepted: number;
  acceptedEarlier: number;
  rejected: number;
  inDoubt: number;
  notSent: number;
  inDoubtBatches: SendResult['inDoubtBatches'];
  stopped: StopReason | null;
  seconds: number;
  /** The command that continues the run; null when nothing is left to send. */
  resume: string | null;
}

/** The summary's figures known after the preflight. */
export function preflightSummary(run: Pick<Summary, 'runId' | 'file' | 'journal' | 'report' | 'dryRun' | 'batchSize'>, pre: PreflightResult, text: TextAnalysis | undefined, totals?: TextTotals): Summary {
  return {
    runId: run.runId,
    file: run.file,
    journal: run.journal,
    report: run.report,
    dryRun: run.dryRun,
    numberColumn: pre.columns.numberColumn,
    rows: pre.rows,
    valid: pre.valid,
    invalid: pre.invalid,
    duplicates: pre.duplicates,
    differentMessages: pre.differentMessages,
    excluded: pre.excluded,
    suppressed: pre.suppressed,
    alreadySent: pre.alreadySent,
    outsidePlan: pre.outsidePlan,
    landlines: { count: pre.landlines, lines: pre.landlineSamples.map((s) => s.line) },
    toSend: pre.toSend,
    requests: pre.requests,
    batchSize: run.batchSize,
    text: text === undefined ? null : { encoding: text.encoding, partsPerMessage: text.parts, parts: text.parts * pre.toSend, forcing: text.forcing.map(describeChar) },
    messages: totals?.toJSON() ?? null,
    problems: pre.problems.map((p) => ({ line: p.line, column: p.column, message: p.message })),
    causes: pre.groups.map((g) => ({ cause: g.cause, column: g.column, count: g.count, lines: g.samples.map((p) => p.line) })),
  };
}

/** The summary once the send pass is over; `resume` only when something is left to send. */
/**
 * Why the send pass stopped, if it did. A signal that came after every batch had its answer
 * stopped nothing: that run ends as a complete one does (exit 0, or 4/7 for rejections), not as
 * an interrupted one (130).
 */
export function stopReason(r: SendResult, toSend: number): SendResult['stopped'] {
  const everyAnswerIn = r.inDoubt === 0 && r.notSent === 0 && r.accepted + r.rejected >= toSend;
  return r.stopped === 'interrupted' && everyAnswerIn ? undefined : r.stopped;
}

export function sentSummary(base: Summary, r: SendResult, seconds: number, resumeCommand: string): SentSummary {
  const resumable = r.notSent + r.inDoubt > 0;
  return {
    ...base,
    excludedAfterStart: r.excludedAfterStart,
    suppressedAfterStart: r.suppressedAfterStart,
    accepted: r.accepted,
    acceptedEarlier: r.acceptedEarlier,
    rejected: r.rejected,
    inDoubt: r.inDoubt,
    notSent: r.notSent,
    inDoubtBatches: r.inDoubtBatches,
    stopped: stopReason(r, base.toSend - r.excludedAfterStart - r.suppressedAfterStart) ?? null,
    seconds: Math.round(seconds * 10) / 10,
    resume: resumable ? resumeCommand : null,
  };
}

/**
 * The run stops at the preflight: invalid rows, and --skip-invalid not given. Numbers on rows with
 * different messages (`several`), when the file has them too, are listed with them: every problem
 * at once.
 */
export function invalidRowsError(base: Summary, pre: PreflightResult, fileLabel: string, reportPath: string | undefined, several?: readonly RepeatedNumber[], garbled = 0): UsageError {
  const reportHint = reportPath !== undefined ? ` Every invalid row is listed in ${reportPath}.` : '';
  const also = several !== undefined && several.length > 0 ? severalMessages(pre, several) : undefined;
  // Under --skip-invalid, rows the file's encoding garbled still stop the run (bulk/preflight/range.ts, garbledRows).
  const why = garbled > 0 ? ` (${formatCount(garbled)} of them garbled by the file's encoding, which ${FLAG.skipInvalid} does not leave out: they are people with accented names)` : '';
  return new UsageError(`${fileLabel}: ${formatCount(pre.invalid)} invalid row${pre.invalid === 1 ? '' : 's'}${why}; nothing was sent:\n${formatGroups(pre.groups).join('\n')}${also !== undefined ? `\nand ${also.title}:\n${also.lines.join('\n')}` : ''}`, {
    hint: `${invalidRowsHint(pre)}${reportHint}${also !== undefined ? `\n      ${also.hint}` : ''}`,
    jsonFor: (exitCode) => ({ ...base, exitCode, stopped: 'preflight', ...(several !== undefined && several.length > 0 ? { repeatedNumbers: repeatedJson(several) } : {}) }),
  });
}

/**
 * The run stops at the preflight: numbers on rows with different messages, and neither
 * --allow-duplicates nor --first-per-number (bulk/preflight/repeats.ts).
 */
export function severalMessagesError(base: Summary, pre: PreflightResult, fileLabel: string, several: readonly RepeatedNumber[]): UsageError {
  const s = severalMessages(pre, several);
  return new UsageError(`${fileLabel}: ${s.title}; nothing was sent:\n${s.lines.join('\n')}`, {
    hint: s.hint,
    jsonFor: (exitCode) => ({ ...base, exitCode, stopped: 'preflight', repeatedNumbers: repeatedJson(several) }),
  });
}

/**
 * With --allow-duplicates, numbers an earlier run accepted that have several messages in this
 * file, where its journal says which numbers it reached but not which message (a run by an
 * earlier msgr, or one that sent each number one message): leaving them all out would lose a
 * message, sending them all would repeat one, so the run stops (docs/reruns.md: "Changed files
 * and follow-up campaigns").
 */
export function unknownMessagesError(base: Summary, pre: PreflightResult, fileLabel: string, numbers: readonly RepeatedNumber[], runs: readonly string[]): UsageError {
  const n = numbers.length;
  const lines = numbers.map((r) => `  ${r.number}: lines ${r.lines.join(', ')}${r.rows > r.lines.length ? `, … (${formatCount(r.rows)} rows)` : ''}`);
  const more = pre.alreadySentOthers.keys.length > n ? ['  … and more'] : [];
  const run = runs[0] ?? 'RUN';
  return new UsageError(
    `${fileLabel}: ${formatCount(n)} number${n === 1 ? '' : 's'} with several messages in this file ${n === 1 ? 'was' : 'were'} messaged by run ${runs.join(', ')}, whose journal does not say which of ${n === 1 ? 'its' : 'their'} messages ${n === 1 ? 'it' : 'they'} had; nothing was sent:\n${[...lines, ...more].join('\n')}`,
    {
      hint: `See which lines that run sent with \`msgr runs report ${run} ${FLAG.report} sent.csv\`; then take the rows already sent out of the file (or put the others in a file of their own) and run the command again.`,
      jsonFor: (exitCode) => ({ ...base, exitCode, stopped: 'preflight', unknownMessages: repeatedJson(numbers) }),
    },
  );
}

function severalMessages(pre: PreflightResult, several: readonly RepeatedNumber[]): { title: string; lines: string[]; hint: string } {
  const n = pre.differentMessages;
  const lines = several.map((r) => `  ${r.number}: lines ${r.lines.join(', ')}${r.rows > r.lines.length ? `, … (${formatCount(r.rows)} rows)` : ''}`);
  if (n > several.length) lines.push(`  … and ${formatCount(n - several.length)} more number${n - several.length === 1 ? '' : 's'}`);
  return {
    title: `${formatCount(n)} number${n === 1 ? ' is' : 's are'} on rows with different messages (text, sender or variables)`,
    lines,
    hint: `Say in the command which way: ${FLAG.allowDuplicates} sends each number each of its messages (two appointments, two messages); ${FLAG.firstPerNumber} sends each only its first row's. Rows that repeat a number with the same message are sent once either way.`,
  };
}

function repeatedJson(several: readonly RepeatedNumber[]): Array<{ number: string; lines: number[]; rows: number }> {
  return several.map((r) => ({ number: r.number, lines: r.lines, rows: r.rows }));
}

/** What a refusal says of one possible opt-out: the number, when and what the reply said. */
export interface UndecidedNumber {
  readonly number: string;
  readonly lines: readonly number[];
  /** describePossible's words (src/optouts/store.ts), and the commands that decide. */
  readonly described: string;
  readonly accept: string;
  readonly dismiss: string;
  readonly json: Record<string, unknown>;
}

/**
 * Rows whose numbers have a possible opt-out no one has decided on (docs/optouts.md: "Possible
 * opt-outs"): the run stops before anything is sent, naming them and the commands that decide.
 * Only a person's decision sends to them, or leaves them out: no flag of this command does.
 */
export function possibleOptOutsError(base: Summary, rows: number, numbers: readonly UndecidedNumber[], fileLabel: string, resumed: boolean): UsageError {
  const shown = numbers.slice(0, 5).map((n) => `  ${n.number}${n.lines.length > 0 ? ` (line${n.lines.length === 1 ? '' : 's'} ${n.lines.join(', ')})` : ''}: ${n.described}`);
  const more = numbers.length > shown.length ? [`  … and ${formatCount(numbers.length - shown.length)} more number${numbers.length - shown.length === 1 ? '' : 's'} (msgr optout possible lists them)`] : [];
  const first = numbers[0];
  const what = resumed ? `the batches this resume would send hold ${formatCount(rows)} row${rows === 1 ? '' : 's'}` : `${formatCount(rows)} row${rows === 1 ? '' : 's'} of ${fileLabel}`;
  return new UsageError(`${what} whose number${numbers.length === 1 ? ' has a possible opt-out' : 's have possible opt-outs'} no one has decided on; nothing was sent:\n${[...shown, ...more].join('\n')}`, {
    hint: `A person reads each reply and decides, then runs this command again: ${first?.accept ?? 'msgr optout possible --accept NUMBER'} (an opt-out: the number is left out as opted out), or ${first?.dismiss ?? 'msgr optout possible --dismiss NUMBER'} (not one: it is sent to).`,
    jsonFor: (exitCode) => ({ ...base, exitCode, stopped: 'possible-opt-outs', possibleOptOuts: numbers.map((n) => n.json) }),
  });
}

/** The error of a run that would send nothing (docs/campaign-input.md: "Preflight"); undefined when it would send. */
export function nothingToSendError(base: Summary, pre: PreflightResult, fileLabel: string): UsageError | undefined {
  const nothing = nothingToSend(pre, fileLabel);
  if (nothing === undefined) return undefined;
  return new UsageError(nothing.message, { hint: nothing.hint, jsonFor: (exitCode) => ({ ...base, exitCode, stopped: 'preflight' }) });
}

/**
 * The error a finished send pass ends with, its --json document the summary with the error's
 * exit code; undefined when every recipient was accepted.
 */
export interface SummaryErrorOptions {
  readonly reportPath: string | undefined;
  readonly clean: (text: string) => string;
  readonly spaceNeeded?: number | undefined;
  /** Where the requests went, for a stop on a 404 or 405: the URL msgr built, from which base URL. */
  readonly address?: { readonly endpoint: URL; readonly baseUrl?: string | undefined; readonly source?: string | undefined } | undefined;
  /** The command that sends the rows once the base URL is fixed (the campaign's rerun.baseUrlFixed: src/commands/send-bulk/resolve-campaign.ts); undefined: none can be given. */
  readonly restart?: string | undefined;
  /** The command that continues the run sending its batches in doubt again (--resend-in-doubt). */
  readonly resend?: string | undefined;
  /** What the account's receipts say of the rows in doubt (bulk/history/run-delivery.ts settleInDoubt). */
  readonly receipts?: { readonly rows: number; readonly withReceipt: number; readonly settledRows: number } | undefined;
}

export function summaryError(summary: SentSummary, r: SendResult, o: SummaryErrorOptions): MsgrError | undefined {
  // Recipients left out since the run started are no longer to be sent.
  const toSend = summary.toSend - summary.excludedAfterStart - summary.suppressedAfterStart;
  // Batches in doubt need a person: whether they arrived is checked first (msgr runs show lists
  // them), then those that did not are sent again under their original Idempotency-Keys. When
  // they are all that is left, a plain resume would send nothing (and end 7 again), so it is not
  // offered (docs/files.md: "Nothing lost, nothing sent twice").
  const runRef = summary.runId ?? '';
  const resend = o.resend !== undefined ? `: ${o.resend}` : ` with ${FLAG.resume} ${FLAG.resendInDoubt}`;
  // Receipts settle doubt (docs/reruns.md: "In doubt meets consent"): a resume records the
  // batches they show whole as accepted and sends them nothing, so a plain resume is what to run
  // when they show every row; the resend is offered only for what they do not show.
  const rc = o.receipts;
  const settled = rc !== undefined && rc.settledRows >= r.inDoubt && r.inDoubt > 0;
  const seen = rc !== undefined && rc.withReceipt > 0 ? `the receipts show ${formatCount(rc.withReceipt)} of them, not every recipient of their batch${rc.withReceipt === 1 ? '' : 'es'}; ` : '';
  const check = settled
    ? `The receipts show every one of the ${formatCount(r.inDoubt)} recipient${r.inDoubt === 1 ? '' : 's'} in doubt (\`msgr runs show ${runRef}\`): they were accepted, and a resume records that and sends them nothing`
    : `Check first whether the ${formatCount(r.inDoubt)} recipient${r.inDoubt === 1 ? '' : 's'} in doubt got the message (${seen}\`msgr runs show ${runRef}\` lists them); send them again under their original Idempotency-Keys (safe at an API that honours them)${resend}`;
  const inDoubtHint = r.inDoubt > 0 ? `\n      ${check}` : '';
  const resumeHint = summary.resume === null ? undefined : r.notSent > 0 || r.inDoubt === 0 || settled ? `Resume with: ${summary.resume}${inDoubtHint}` : check;
  const jsonFor = (exitCode: ExitCode): unknown => ({ ...summary, exitCode });
  // The last failure's own hint, without its "Nothing was sent": a run may have sent other batches.
  const lastHint = withoutNothingSent(r.lastHint);
  if (r.stopped === 'auth') {
    return new AuthError(`the API refused the key or the account (HTTP ${r.authStatus ?? 401}): ${o.clean(r.authMessage ?? '')}; the run stopped`, {
      // A resume rebuilds every request as it was, account included: a wrong key can be fixed for
      // it, a wrong account only by starting again (--restart leaves out what was accepted).
      hint: `Check the API key and account (msgr profile show tells where each came from).${resumeHint !== undefined ? ` A fixed key can resume the run; another ${FLAG.account} cannot (each request is rebuilt as it was): run the command again with the right ${FLAG.account} and ${FLAG.restart}.\n      ${resumeHint}` : ''}`,
      jsonFor,
    });
  }
  // A stop leaves in doubt only what the network did (a batch that timed out while the run
  // drained, or one an earlier run left): those recipients need checking, which a resume alone
  // does not do, so the run ends as a partial one (exit 7), not as a clean stop (exit 130), and
  // keeps `stopped` to say why (docs/contract.md: "Exit codes"; docs/unattended.md).
  const StopClass = r.inDoubt > 0 ? PartialError : InterruptedError;
  const inDoubt = r.inDoubt > 0 ? `, ${formatCount(r.inDoubt)} in doubt` : '';
  if (stopReason(r, toSend) === 'interrupted') {
    return new StopClass(`interrupted: ${formatCount(r.accepted)} of ${formatCount(toSend)} recipients accepted${inDoubt}`, {
      ...(resumeHint !== undefined ? { hint: resumeHint } : {}),
      jsonFor,
    });
  }
  // A local cause stops the run as Ctrl-C does: the answers in flight were written down.
  if (r.stopped === 'disk-full' || r.stopped === 'journal') {
    const where = r.stopped === 'disk-full' ? `no space left in ${r.fullFolder ?? '?'}` : `the journal could not be written (${o.clean(r.journalError ?? '?')})`;
    const doubt = r.inDoubt === 0 ? ', none in doubt' : inDoubt;
    const next = r.stopped === 'disk-full' ? `free ${o.spaceNeeded !== undefined ? `at least ${formatBytes(o.spaceNeeded)}` : 'some space'} there, then resume` : 'fix that, then resume';
    return new StopClass(`${where}: sending stopped with ${formatCount(r.accepted)} of ${formatCount(toSend)} recipients accepted${doubt}; ${next}`, {
      ...(resumeHint !== undefined ? { hint: resumeHint } : {}),
      jsonFor,
    });
  }
  if (r.stopped === 'config') {
    const wrong = r.wrongAddress;
    // A redirect's hint is the client's (REDIRECT_HINT); a 404's names the URL this run built.
    const why =
      wrong === undefined || wrong < 400 || o.address === undefined ? lastHint
      : wrongAddressHint({ status: wrong, method: 'POST', url: o.address.endpoint, built: '{base_url}/v2/messages', baseUrl: o.address.baseUrl, source: o.address.source });
    const next = wrong === undefined ? resumeHint : withFixedBaseUrl(r, o.restart, runRef, 'Once the base URL is right, send the rows with');
    const hint = [why, next, wrong !== undefined && r.inDoubt > 0 ? inDoubtHint.trim() : undefined].filter((s) => s !== undefined).join('\n      ');
    // Exit 2 says nothing was sent; once something was (or may have been), the run is a partial
    // one (exit 7).
    const ErrorClass = r.accepted === 0 && r.acceptedEarlier === 0 && r.inDoubt === 0 ? UsageError : PartialError;
    return new ErrorClass(`not sent: ${o.clean(r.lastFailure ?? '?')}; the run stopped with ${formatCount(r.accepted)} of ${formatCount(toSend)} recipients accepted${inDoubt}`, {
      ...(hint !== '' ? { hint } : {}),
      jsonFor,
    });
  }
  // A connection never made (or a proxy's tunnel, a TLS handshake): the rows left were not sent,
  // and a resume sends them once the API can be reached. Nothing in doubt: exit 5, "not sent,
  // safe to run again", whatever this run had accepted before (docs/contract.md: "Exit codes").
  if (r.stopped === 'unreachable') {
    // The API may be down (then the resume), or the base URL wrong (then a new run).
    const resume = summary.resume !== null ? `Once the API can be reached, resume with: ${summary.resume}${inDoubtHint}` : undefined;
    const hint = [lastHint, resume, summary.resume !== null ? withFixedBaseUrl(r, o.restart, runRef, 'If the base URL is wrong, send the rows with the right one') : undefined].filter((s) => s !== undefined).join('\n      ');
    const ErrorClass = r.inDoubt > 0 ? PartialError : NotSentError;
    return new ErrorClass(`not sent: ${o.clean(r.lastFailure ?? '?')}; the run stopped with ${formatCount(r.accepted)} of ${formatCount(toSend)} recipients accepted${r.inDoubt > 0 ? inDoubt : ', none in doubt'}`, {
      ...(hint !== '' ? { hint } : {}),
      jsonFor,
    });
  }
  if (r.stopped === 'failing') {
    const hint = [lastHint, resumeHint].filter((s) => s !== undefined).join('\n      ');
    return new PartialError(`stopped early: ${MAX_CONSECUTIVE_FAILURES} batches in a row got no answer (last: ${o.clean(r.lastFailure ?? '?')}); ${formatCount(r.accepted)} of ${formatCount(toSend)} recipients accepted`, {
      ...(hint !== '' ? { hint } : {}),
      jsonFor,
    });
  }
  // A canary that sent what it was asked to, every answer in: done, the rest left to a resume
  // (exit 0: docs/cost-and-canary.md). With rows rejected or in doubt it is a partial run as any.
  if (r.stopped === 'limit' && r.rejected === 0 && r.inDoubt === 0) return undefined;
  // Send windows (docs/send-windows.md): --exit-when-closed stops at a closed window with the
  // command that goes on (exit 8); a deadline leaves the rows not sent by then "not sent (deadline)" (7).
  if (r.stopped === 'window-closed' && r.inDoubt === 0) {
    const opens = r.opensAt !== undefined ? new Date(r.opensAt).toISOString() : 'later';
    return new WindowClosedError(`outside the send window: ${formatCount(r.accepted)} of ${formatCount(toSend)} recipients accepted; the next batch may leave at ${opens}`, {
      ...(summary.resume !== null ? { hint: `Run this once the window opens (a cron line can run it every 15 minutes; it goes on where it stopped): ${summary.resume}${summary.resume.includes(FLAG.exitWhenClosed) ? '' : ` ${FLAG.exitWhenClosed}`}` } : {}),
      jsonFor: (exitCode) => ({ ...summary, exitCode, windowOpensAt: r.opensAt !== undefined ? new Date(r.opensAt).toISOString() : null }),
    });
  }
  if (r.stopped === 'deadline') {
    const at = summary.schedule?.stopAt ?? '';
    return new PartialError(`deadline ${FLAG.stopAt} ${at}: ${formatCount(r.accepted)} of ${formatCount(toSend)} recipients accepted, ${formatCount(r.notSent)} not sent (deadline)${inDoubt}`, {
      hint: [o.reportPath !== undefined ? `Every row's outcome is in ${o.reportPath}.` : undefined, summary.resume !== null ? `The rest are sent only with a new deadline: ${summary.resume.replace(/ --stop-at \S+/, '')} ${FLAG.stopAt} 4h` : undefined, r.inDoubt > 0 ? inDoubtHint.trim() : undefined].filter((s) => s !== undefined).join('\n      '),
      jsonFor,
    });
  }
  if (r.accepted < toSend) {
    const parts = [r.rejected > 0 ? `${formatCount(r.rejected)} rejected` : '', r.inDoubt > 0 ? `${formatCount(r.inDoubt)} in doubt` : '', r.notSent > 0 ? `${formatCount(r.notSent)} not sent` : ''].filter((s) => s !== '');
    // Why batches got no answer or could not leave (a server down, a refused connection): said
    // here too, not only per row in the report, when too few failed in a row to stop the run.
    const last = r.lastFailure !== undefined && r.inDoubt + r.notSent > 0 ? `; last: ${o.clean(r.lastFailure)}` : '';
    return new PartialError(`${formatCount(toSend - r.accepted)} of ${formatCount(toSend)} recipients were not accepted (${parts.join(', ')}${last})`, {
      // The report of a run without one: `msgr runs report` writes it from the journal (a run of
      // the command again with --report would be a new run of the file, or "already done").
      hint: [o.reportPath !== undefined ? `Every row's outcome is in ${o.reportPath}.` : `Every row's outcome: msgr runs report ${runRef} ${FLAG.report} FILE`, last !== '' ? lastHint : undefined, resumeHint].filter((s) => s !== undefined).join('\n      '),
      jsonFor,
    });
  }
  return undefined;
}

/**
 * How the rows of a run go to a fixed base URL: a new run with --restart, since a resume goes
 * where the run started and one to another base URL is refused (docs/files.md: "Nothing lost,
 * nothing sent twice"). `restart`: the command (src/commands/send-bulk/resolve-campaign.ts, restartCommand), when it can be given.
 */
function withFixedBaseUrl(r: SendResult, given: string | undefined, runId: string, lead: string): string {
  const accepted = r.accepted + r.acceptedEarlier > 0;
  const leftOut = accepted ? 'it leaves out the rows this run accepted' : 'this run had none accepted, so each row is sent once';
  // A --restart with --again messages the rows the abandoned run accepted again (docs/reruns.md:
  // "Running a file again"): naming this run with --skip-sent instead leaves out only those.
  const restart = accepted && given !== undefined && / --again(?= |$)/.test(given) ? given.replace(/ --again(?= |$)/, ` ${FLAG.skipSent} ${runId}`) : given;
  return restart !== undefined ? `${lead}: ${restart} (${leftOut})` : `${lead}: the command that started the run, with the base URL fixed and ${FLAG.restart} (${leftOut}).`;
}

/** The --json document of a run that ended well. */
export function successDocument(summary: SentSummary): unknown {
  return { ...summary, exitCode: ExitCode.OK };
}

/**
 * The preflight's totals. Invalid rows are listed here only under --skip-invalid: otherwise the
 * error that stops the run lists them, and each is printed once.
 */
/** What goes to the provider beside each number (docs/personalised.md: "What goes to the provider"). */
export interface RequestColumns {
  readonly vars: readonly string[];
  readonly meta: readonly string[];
  /** Who fills in the text: msgr (--text, --text-file, --text-column), or the provider (--template, --no-render). */
  readonly renderer: 'msgr' | 'provider';
  /** --var-columns was given (or the run's journal has its columns). */
  readonly given: boolean;
}

/** The preflight's line on what each request carries beside its numbers. */
export function describeRequestColumns(c: RequestColumns): string[] {
  const names = (list: readonly string[]): string => list.map((n) => JSON.stringify(n)).join(', ');
  const n = c.vars.length;
  const count = `${formatCount(n)} column${n === 1 ? '' : 's'}`;
  let vars: string;
  if (c.renderer === 'provider') vars = n === 0 ? 'none (the provider fills in the template without them)' : `${count} go${n === 1 ? 'es' : ''} to the provider as recipients[].variables with each number, for it to fill in the template: ${names(c.vars)}${c.given ? ` (${FLAG.varColumns})` : ` (every column but the number's${c.meta.length > 0 ? ' and metaData' : ''}; ${FLAG.varColumns} narrows them)`}`;
  else vars = n === 0 ? `none: msgr fills in the text, and no column goes to the provider (${FLAG.varColumns} sends some)` : `${count} go${n === 1 ? 'es' : ''} to the provider as recipients[].variables with each number (${FLAG.varColumns}): ${names(c.vars)}`;
  return [`variables: ${vars}`, ...(c.meta.length > 0 ? [`metaData: ${names(c.meta)} with each number (${FLAG.metaColumns})`] : [])];
}

export function printPreflight(ui: Ui, pre: PreflightResult, text: TextAnalysis | undefined, label: string, seconds: string, o: { skipInvalid: boolean; exclude: { label: string; numbers: number } | undefined; store?: OptOutStoreSummary | undefined; totals?: TextTotals | undefined; sms: boolean; repeats: RepeatMode; resumed?: boolean; columns?: RequestColumns | undefined }): void {
  const skipped = [
    pre.invalid > 0 ? `${formatCount(pre.invalid)} invalid` : '',
    pre.duplicates > 0 ? `${formatCount(pre.duplicates)} duplicate${pre.duplicates === 1 ? '' : 's'}` : '',
    pre.excluded > 0 ? `${formatCount(pre.excluded)} excluded` : '',
    pre.suppressed > 0 ? `${formatCount(pre.suppressed)} opted out` : '',
    // So that the rows to send (next line) are the valid rows less those listed here.
    pre.alreadySent > 0 ? `${formatCount(pre.alreadySent)} already sent` : '',
  ].filter((s) => s !== '');
  ui.info(`preflight: ${label}: ${formatCount(pre.rows)} row${pre.rows === 1 ? '' : 's'}, ${formatCount(pre.valid)} valid${skipped.length > 0 ? `, ${skipped.join(', ')}` : ''} (${seconds} s)`);
  ui.info(`  numbers: ${describeNumberColumn(pre.columns.numberColumn, o.resumed === true)}`);
  ui.info(`  to send: ${formatCount(pre.toSend)} recipient${pre.toSend === 1 ? '' : 's'} in ${formatCount(pre.requests)} request${pre.requests === 1 ? '' : 's'}`);
  if (text !== undefined) {
    const forcing = text.forcing.length > 0 ? ` (forced by ${text.forcing.slice(0, 8).map(describeChar).join(', ')}${text.forcing.length > 8 ? ', …' : ''})` : '';
    ui.info(`  text: ${text.encoding}${forcing}, ${text.units} ${text.encoding === 'GSM-7' ? 'septet' : 'character'}${text.units === 1 ? '' : 's'}: ${text.parts} SMS part${text.parts === 1 ? '' : 's'} per message, ${formatCount(text.parts * pre.toSend)} in total`);
  }
  if (o.totals !== undefined && o.totals.messages > 0) ui.info(`  ${o.totals.describe()}`);
  // Said when a column goes to the provider, or a template takes none: msgr filling in the text
  // and sending no column is the default, and goes without a line.
  const c = o.columns;
  if (c !== undefined && (c.vars.length > 0 || c.meta.length > 0 || c.renderer === 'provider')) for (const line of describeRequestColumns(c)) ui.info(`  ${line}`);
  // The warnings about the file's rows were given when the run started: a resume (a cron job's
  // every tick) says them for people, not again under -q.
  const warn = o.resumed === true ? (line: string): void => ui.info(`  ${line}`) : (line: string): void => ui.warn(line);
  const several = pre.differentMessages;
  const numbers = `${formatCount(several)} number${several === 1 ? '' : 's'}`;
  if (several > 0 && o.repeats === 'each') ui.info(`  ${numbers} on rows with different messages: each gets each of its messages (${FLAG.allowDuplicates})`);
  if (several > 0 && o.repeats === 'first') ui.info(`  ${numbers} on rows with different messages: each gets its first row's message only (${FLAG.firstPerNumber}); the others are among the duplicates`);
  if (pre.outsidePlan > 0) {
    const samples = pre.outsideSamples.map((s) => `${s.number} (line ${s.line})`).join(', ');
    // Rows, not numbers: with a message per row one number may be sent several messages.
    const rows = pre.outsidePlan === 1 ? '1 row' : `${formatCount(pre.outsidePlan)} rows`;
    ui.info(`  outside the known numbering plan, sent as ${FLAG.allowUnlistedNumbers} says: ${rows}: ${samples}${pre.outsideSamples.length === 5 && pre.outsidePlan > 5 ? ', …' : ''}`);
  }
  if (o.sms && pre.landlines > 0) {
    // Said, not stopped: some fixed lines take SMS (read out by a voice), and the plan is the
    // only way to tell; the column it came from is named above (docs/campaign-input.md: "Input").
    const n = pre.landlines;
    const lines = pre.landlineSamples.map((s) => s.line);
    warn(`${formatCount(n)} row${n === 1 ? ' to send has a landline number' : 's to send have landline numbers'} by ${n === 1 ? 'its' : 'their'} numbering plan (line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}${n > lines.length ? ', …' : ''}): SMS to a landline usually fails; ${FLAG.mobileOnly} leaves them out`);
  }
  const { count: unnamed, first, columns } = pre.unnamedValues;
  if (first !== undefined) {
    const one = columns.length <= 1;
    const where = one ? `a column with no name in the header (column ${first.column}` : `columns with no name in the header (columns ${listed(columns)}`;
    warn(
      `${formatCount(unnamed)} row${unnamed === 1 ? ' has a value' : 's have values'} in ${where}, first on line ${first.line}): such values are not sent; give ${one ? 'the column a name' : 'each column a name'} in the header to send ${one ? 'it as a variable or use it' : 'them as variables or use them'} in {{…}}`,
    );
  }
  if (pre.invalid > 0 && o.skipInvalid) warn(`${formatCount(pre.invalid)} invalid row${pre.invalid === 1 ? '' : 's'} will not be sent:\n${formatGroups(pre.groups).join('\n')}`);
  if (o.exclude !== undefined) {
    const { label: list, numbers } = o.exclude;
    ui.info(`  excluded: ${formatCount(pre.excluded)} row${pre.excluded === 1 ? '' : 's'} on the opt-out list ${list} (${formatCount(numbers)} number${numbers === 1 ? '' : 's'})`);
  }
  const store = o.store;
  if (store !== undefined && store.numbers > 0) {
    const whose = `the opt-out store${store.account !== null ? ` of account ${store.account}` : ' for every account'}, ${formatCount(store.numbers)} number${store.numbers === 1 ? '' : 's'}`;
    // Said, not asked: leaving them out is the default, and sending to them takes a flag and --yes.
    if (store.store === 'left-out') ui.info(`  opted out: ${formatCount(pre.suppressed)} row${pre.suppressed === 1 ? '' : 's'} left out, suppressed (${whose}; msgr optout list)`);
    else ui.warn(`${FLAG.includeOptedOut}: the numbers in ${whose}, are not left out: they are messaged`);
  }
}

/** Which column the numbers come from, and why that one (docs/campaign-input.md: "Input"); a resume reads the journal's. */
export function describeNumberColumn(c: NumberColumnChoice, resumed = false): string {
  const name = `column "${c.name}"`;
  if (resumed) return `${name}, as the run started`;
  if (c.how === 'flag') return `${name} (${FLAG.msisdnColumn})`;
  if (c.how === 'only') return name;
  return `${name}, whose name says mobile, over ${c.over.map((o) => `"${o}"`).join(', ')} (${FLAG.msisdnColumn} chooses another)`;
}

/** `2 and 4`, `2, 4 and 7`; past ten, the first ten and `…`. */
function listed(columns: readonly number[]): string {
  if (columns.length > 10) return `${columns.slice(0, 10).join(', ')}, …`;
  return columns.length === 1 ? String(columns[0]) : `${columns.slice(0, -1).join(', ')} and ${String(columns[columns.length - 1])}`;
}

/**
 * After the preflight's lines: the rows an earlier run accepted, left out (with --delivered-only,
 * what became of the numbers not delivered, in the same line), and the numbers in doubt, not left out.
 */
export function printLeftOut(ui: Pick<Ui, 'info' | 'warn'>, sent: SentNumbers | undefined, pre: Pick<PreflightResult, 'alreadySent' | 'resent'>, leaveOut: LeaveOutProbe | undefined, resendInDoubt: boolean): void {
  if (sent === undefined) return;
  const d = sent.deliveredOnly;
  ui.info(`  ${describeSkipped(pre.alreadySent, sent, d !== undefined ? { resent: pre.resent, ...notDeliveredLeftOut(d, leaveOut) } : undefined)}`);
  if (sent.inDoubt > 0) {
    const ids = sent.runs.map((r) => r.runId);
    const one = sent.inDoubt === 1;
    const were = `${formatCount(sent.inDoubt)} number${one ? ' was' : 's were'} in doubt in run ${ids.join(', ')} (sent, no answer)`;
    const see = `see them with: msgr runs report ${ids[0] ?? ''} ${FLAG.report} in-doubt.csv`;
    // The words say what this run does with them: left out (--skip-in-doubt, counted among the
    // rows already sent), sent again as asked, or sent again without a word of the command's.
    if (sent.inDoubtLeftOut === true) ui.info(`  ${were}: among the rows left out above, not sent again (${FLAG.skipInDoubt}); ${see}`);
    else if (resendInDoubt) ui.warn(`${were}: ${one ? 'it is' : 'they are'} sent again (${FLAG.resendInDoubt}), so ${one ? 'it' : 'they'} may get this message twice; ${see}`);
    else ui.warn(`${were}: they are not left out, so they may get this message twice; ${see}`);
  }
}

/**
 * What a resume has left of the file's rows to send: those the earlier runs got no final answer
 * for (a batch in doubt only with --resend-in-doubt). The preflight's "to send" is the whole file's,
 * as the run started; the confirmation and this line are what this command sends.
 */
export function leftToSend(toSend: number, earlier: OutcomeTotals, resendInDoubt: boolean): number {
  return Math.max(0, toSend - earlier.accepted - earlier.rejected - earlier.excluded - (resendInDoubt ? 0 : earlier.inDoubt));
}

export function printLeftToSend(ui: Pick<Ui, 'info'>, left: number, earlier: OutcomeTotals, resendInDoubt: boolean): void {
  const answered = [`${formatCount(earlier.accepted)} accepted`, ...(earlier.rejected > 0 ? [`${formatCount(earlier.rejected)} rejected`] : []), ...(earlier.excluded > 0 ? [`${formatCount(earlier.excluded)} excluded since the start`] : []), ...(earlier.inDoubt > 0 ? [`${formatCount(earlier.inDoubt)} in doubt, ${resendInDoubt ? `sent again (${FLAG.resendInDoubt})` : `not sent again without ${FLAG.resendInDoubt}`}`] : [])];
  ui.info(`  left to send by this resume: ${formatCount(left)} recipient${left === 1 ? '' : 's'} (earlier: ${answered.join(', ')})`);
}

export function printSummary(ui: Ui, s: SentSummary, r: SendResult, seconds: number): void {
  const rate = seconds > 0 ? Math.round((r.accepted - r.acceptedEarlier) / seconds) : 0;
  const earlier = r.acceptedEarlier > 0 ? ` (${formatCount(r.acceptedEarlier)} before this resume)` : '';
  const target = s.toSend - r.excludedAfterStart - r.suppressedAfterStart;
  const line =
    s.toSend === 0 && s.alreadySent > 0
      ? `nothing left to send: every row to send had already been accepted by an earlier run (${formatCount(s.alreadySent)})`
      : `${formatCount(r.accepted)} of ${formatCount(target)} recipient${target === 1 ? '' : 's'} accepted${earlier} in ${seconds.toFixed(1)} s (${formatCount(rate)}/s); accepted is not yet delivered`;
  if (r.accepted === target && stopReason(r, target) === undefined) ui.success(line);
  else ui.info(line);
  const notAccepted = [
    r.rejected > 0 ? `${formatCount(r.rejected)} rejected` : '',
    r.inDoubt > 0 ? `${formatCount(r.inDoubt)} in doubt` : '',
    r.notSent > 0 ? `${formatCount(r.notSent)} not sent` : '',
  ].filter((x) => x !== '');
  if (notAccepted.length > 0) ui.info(`  not accepted: ${notAccepted.join(', ')}`);
  const skipped = [
    s.invalid > 0 ? `${formatCount(s.invalid)} invalid` : '',
    s.duplicates > 0 ? `${formatCount(s.duplicates)} duplicate${s.duplicates === 1 ? '' : 's'}` : '',
    s.excluded > 0 ? `${formatCount(s.excluded)} excluded` : '',
    s.suppressed > 0 ? `${formatCount(s.suppressed)} opted out (suppressed)` : '',
    s.alreadySent > 0 ? `${formatCount(s.alreadySent)} already sent` : '',
    (s.spend?.mobileOnly?.filtered ?? 0) > 0 ? `${formatCount(s.spend?.mobileOnly?.filtered ?? 0)} filtered (${FLAG.mobileOnly})` : '',
    r.excludedAfterStart > 0 ? `${formatCount(r.excludedAfterStart)} on the ${FLAG.exclude} list since the run started` : '',
    r.suppressedAfterStart > 0 ? `${formatCount(r.suppressedAfterStart)} opted out since the run started` : '',
  ].filter((x) => x !== '');
  if (skipped.length > 0) ui.info(`  skipped before sending: ${skipped.join(', ')}`);
  if (r.throttled > 0) ui.info(`  the server throttled ${formatCount(r.throttled)} time${r.throttled === 1 ? '' : 's'} (429/503); the run slowed down`);
  for (const b of r.inDoubtBatches.slice(0, 10)) {
    ui.info(`  in doubt: batch ${b.batch} (${formatCount(b.recipients)} recipient${b.recipients === 1 ? '' : 's'} from line ${b.firstLine}, Idempotency-Key ${b.idempotencyKey})`);
  }
  if (r.inDoubtBatches.length > 10) ui.info(`  … and ${r.inDoubtBatches.length - 10} more batches in doubt`);
  if (s.journal !== null) ui.info(`  journal: ${s.journal}`);
  if (s.report !== null) ui.info(`  report: ${s.report}`);
}

/**
 * A run with nothing left to send, every batch answered: `--resume` of a finished run, or a
 * campaign key (--once) whose run finished. Said in one line on stderr and nothing under -q, so a
 * cron job that comes round again after the work is done mails nobody; `--json` gets a document
 * with exit code 0 (docs/reruns.md: "Campaign keys").
 */
export function finishedDocument(o: { runId: string; file: string; journal: string; finishedAt: string | undefined; totals: OutcomeTotals; once: string | undefined }): { line: string; doc: Record<string, unknown> } {
  const { accepted, rejected } = o.totals;
  const figures = `${formatCount(accepted)} accepted${rejected > 0 ? `, ${formatCount(rejected)} rejected` : ''}`;
  const when = o.finishedAt !== undefined ? ` at ${o.finishedAt}` : '';
  const line = o.once !== undefined ? `already done: run ${o.runId} (${FLAG.once} ${o.once}) finished${when} (${figures}); nothing was sent` : `nothing to do: run ${o.runId} finished${when} (${figures}); nothing was sent`;
  const doc = { runId: o.runId, file: o.file, journal: o.journal, once: o.once ?? null, nothingToDo: true, finishedAt: o.finishedAt ?? null, accepted, rejected, exitCode: ExitCode.OK };
  return { line, doc };
}

/**
 * Stopped before anything was sent (`plain`: how it says so, by default at a checkpoint). Exit 130
 * says "nothing in doubt": a resume whose earlier run left batches in doubt still has them, so it
 * is 7 as when it stops later (docs/contract.md: "Exit codes").
 */
export function interruptedBeforeSending(run: Run, plain?: InterruptedError): MsgrError {
  const doubt = run.kind === 'resume' ? run.resumed.states.filter(isInDoubt).length : 0;
  if (run.kind !== 'resume' || doubt === 0) return plain ?? new InterruptedError('interrupted before anything was sent', { hint: 'Nothing was sent; run the same command again.' });
  return new PartialError(`interrupted before anything was sent; ${doubt} batch${doubt === 1 ? '' : 'es'} an earlier run left in doubt ${doubt === 1 ? 'is' : 'are'} still in doubt`, {
    hint: `\`msgr runs show ${run.resumed.header.runId}\` lists them: check whether they arrived; run the same command again to send the rest.`,
  });
}
