// `msgr runs list|show|report|prune`: data on stdout (a table, or --json), people's lines on
// stderr. The work is in bulk/runs/catalogue.ts and bulk/runs/report.ts.
import { basename, join, resolve } from 'node:path';
import type { Context } from '../../context.js';
import { isInDoubt, type RunHeader } from '../../bulk/journal/records.js';
import { refuseReportOver, ReportWriter } from '../../bulk/report/writer.js';
import { writeRunReport } from '../../bulk/runs/report.js';
import { describeSender, describeTarget, describeText, keyFingerprint, sameBaseUrl } from '../../bulk/runs/target.js';
import { findRun, listRuns, pruneRuns, readRunDetail, runInfo, type RunInfo } from '../../bulk/runs/catalogue.js';
import { realFile, runDirFor } from '../../bulk/runs/state-folder.js';
import { lockHolder, type LockOwner } from '../../files/lock.js';
import { createUi, type Ui } from '../../output/ui.js';
import { getProfile, loadStore, type Profile } from '../../profiles/store.js';
import type { RunsOptions } from './options.js';
import { buildResumeCommand } from '../../bulk/runs/resume-command.js';
import { readHeader } from '../../bulk/journal/load.js';
import { formatCount } from '../../output/count.js';
import { stateDir } from '../../files/state-dir.js';
import { DEFAULT_CONCURRENCY } from '../../bulk/campaign.js';

function state(ctx: Context): string {
  return stateDir(ctx.env, ctx.cwd);
}

/**
 * The msgr process sending the run now, if any (a live process holds its journal's lock): its
 * batches without an answer yet are in flight, not left in doubt, and a --resume would be refused.
 */
function sendingNow(ctx: Context, r: RunInfo): LockOwner | undefined {
  return r.finished || r.abandoned ? undefined : lockHolder(`${r.journal}.lock`, ctx);
}

function status(r: RunInfo, sending: LockOwner | undefined): string {
  if (r.finished) return 'finished';
  if (r.abandoned) return 'abandoned';
  return sending !== undefined ? 'sending' : 'unfinished';
}

const sendingJson = (o: LockOwner | undefined): { pid: number; host: string; since: string } | null => (o === undefined ? null : { pid: o.pid, host: o.host, since: o.startedAt });

function shortTarget(r: RunInfo): string {
  const t = r.target;
  if (t === null || t === undefined) return 'unknown';
  return t.sandbox ? 'sandbox' : `${t.baseUrl} ${t.account ?? ''}`.trim();
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

export async function runList(ctx: Context, opts: RunsOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const runs = (await listRuns(state(ctx))).map((r) => ({ ...r, sending: sendingNow(ctx, r) }));
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ stateDir: state(ctx), runs: runs.map((r) => ({ ...r, sending: sendingJson(r.sending) })) }, null, 2)}\n`);
    return;
  }
  if (runs.length === 0) {
    ui.info(`no runs in ${state(ctx)}`);
    return;
  }
  if (!opts.wide) {
    // 80 columns (or the terminal's width): the run by the last 8 characters of its id (which
    // every `msgr runs` command takes), its file by name; --wide and --json give them in full.
    const rows = [['RUN', 'STARTED', 'FILE', 'TARGET', 'ACCEPTED', 'STATE']];
    for (const r of runs) {
      // What needs a look; the rows not sent yet are the rest of ACCEPTED's total. While a run
      // sends, its batches without an answer are in flight, not in doubt.
      const look = [[r.sending !== undefined ? 0 : r.inDoubt, 'in doubt'], [r.rejected, 'rejected']].filter(([n]) => Number(n) > 0).map(([n, what]) => `${formatCount(Number(n))} ${String(what)}`);
      rows.push([
        r.runId.slice(r.runId.lastIndexOf('-') + 1),
        r.startedAt.slice(5, 16).replace('T', ' ') + 'Z',
        basename(r.file),
        narrowTarget(r),
        `${formatCount(r.accepted)}${r.alreadySent > 0 ? `+${formatCount(r.alreadySent)}` : ''} of ${formatCount(r.toSend + r.alreadySent)}`,
        `${status(r, r.sending)}${look.length > 0 ? ` (${look.join(', ')})` : ''}`,
      ]);
    }
    const width = ctx.stdout.isTTY === true ? Math.max(80, ctx.stdout.columns ?? 80) : 80;
    ctx.stdout.write(`${table(fitWidth(rows, width, [[3, 8, 'end'], [2, 12, 'middle'], [5, 10, 'end']]))}\n`);
    return;
  }
  const rows = [['RUN', 'STARTED', 'FILE', 'TARGET', 'ROWS', 'ACCEPTED', 'IN DOUBT', 'NOT SENT', 'STATE']];
  for (const r of runs) {
    rows.push([
      r.runId,
      r.startedAt.replace('T', ' ').replace(/:\d\d\.\d+Z$/, 'Z'),
      r.file,
      shortTarget(r),
      formatCount(r.rows),
      `${formatCount(r.accepted)}${r.alreadySent > 0 ? ` (+${formatCount(r.alreadySent)} earlier)` : ''}`,
      formatCount(r.inDoubt),
      formatCount(r.notSent),
      status(r, r.sending),
    ]);
  }
  ctx.stdout.write(`${table(rows)}\n`);
}

/** Sandbox, else the account (or the API's host when the run had none). */
function narrowTarget(r: RunInfo): string {
  const t = r.target;
  if (t === null || t === undefined) return 'unknown';
  if (t.sandbox) return 'sandbox';
  if (t.account !== undefined && t.account !== null) return t.account;
  try {
    return new URL(t.baseUrl).host;
  } catch {
    return t.baseUrl;
  }
}

/**
 * The table cut to `width` columns: the columns named shrink in turn, each down to its
 * minimum, their cells cut with "…" (in the middle for a file name, whose end tells files apart).
 */
export function fitWidth(rows: string[][], width: number, shrink: ReadonlyArray<readonly [column: number, min: number, cut: 'middle' | 'end']>): string[][] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  let over = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) - width;
  for (const [column, min] of shrink) {
    if (over <= 0) break;
    const w = widths[column] ?? 0;
    const cut = Math.min(over, Math.max(0, w - min));
    widths[column] = w - cut;
    over -= cut;
  }
  return rows.map((r) => r.map((c, i) => {
    const w = widths[i] ?? c.length;
    if (c.length <= w) return c;
    const how = shrink.find(([column]) => column === i)?.[2];
    if (how === 'middle') {
      const head = Math.ceil((w - 1) / 2);
      return `${c.slice(0, head)}…${c.slice(c.length - (w - 1 - head))}`;
    }
    return `${c.slice(0, w - 1)}…`;
  }));
}

/**
 * How the run's last process ended, when none is sending it now (sendingNow): its "stop" line,
 * or, when it wrote none and the run is unfinished, that it was killed or the machine went down.
 */
function stopNote(info: RunInfo, lastStop: string | undefined): string {
  // "finished" is the process's end, not the run's: said so, beside a state that may be "unfinished".
  if (lastStop === 'finished' && !info.finished) return ' (its last process ended on its own, leaving rows not sent or in doubt)';
  if (lastStop !== undefined) return ` (last stop: ${lastStop})`;
  if (info.finished || info.abandoned) return '';
  return ' (its last process wrote no stop: it was killed, or the machine went down)';
}

export async function runShow(ctx: Context, ref: string, opts: RunsOptions): Promise<void> {
  const journal = findRun(state(ctx), ctx.cwd, ref, 'runs show');
  const info = await runInfo(journal);
  const detail = await readRunDetail(journal, 'runs show');
  const h = detail.loaded.header;
  const inDoubt: Array<{ batch: number; idempotencyKey: string; firstLine: number | null; recipients: number; numbers: readonly string[] }> = [];
  detail.loaded.states.forEach((s, b) => {
    if (!isInDoubt(s)) return;
    const send = detail.sends.get(b);
    inDoubt.push({ batch: b, idempotencyKey: send?.key ?? '', firstLine: send?.lines?.[0] ?? null, recipients: send?.count ?? 0, numbers: send?.numbers ?? [] });
  });
  const sending = sendingNow(ctx, info);
  const doc = { ...info, status: status(info, sending), sending: sendingJson(sending), message: h.message, skipSent: h.skipSent ?? [], inDoubtBatches: inDoubt, lastStop: detail.loaded.lastStop ?? null };
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const lines: Array<[string, string]> = [
    ['run', info.runId],
    [
      'state',
      sending !== undefined
        ? `sending now (msgr pid ${sending.pid} on ${sending.host}, since ${sending.startedAt}): a batch without its answer yet is in flight, counted in doubt until it comes`
        : `${status(info, sending)}${stopNote(info, detail.loaded.lastStop)}`,
    ],
    ['journal', journal],
    ['file', info.file],
    ['target', describeTarget(h.target)],
    ['started', `${info.startedAt} by msgr ${info.msgr}`],
    ['message', describeText(h.message, h.shape.personal) ?? ''],
    ['from', describeSender(h.message, h.shape.personal) ?? ''],
    ...(h.once !== undefined ? [['key', `--once ${h.once.key}`] as [string, string]] : []),
    ['rows', `${formatCount(info.rows)}, ${formatCount(info.toSend)} to send${info.alreadySent > 0 ? `, ${formatCount(info.alreadySent)} already sent by ${(h.skipSent ?? []).map((s) => s.runId).join(', ')}` : ''}`],
    ['accepted', formatCount(info.accepted)],
    ['rejected', formatCount(info.rejected)],
    ['in doubt', formatCount(info.inDoubt)],
    ['not sent', formatCount(info.notSent)],
  ];
  const w = Math.max(...lines.map(([k]) => k.length));
  let out = lines.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
  for (const b of inDoubt.slice(0, 20)) {
    out += `\nin doubt: batch ${b.batch} (${b.recipients} recipient${b.recipients === 1 ? '' : 's'} from line ${b.firstLine ?? '?'}, Idempotency-Key ${b.idempotencyKey})${b.numbers.length > 0 ? `: ${b.numbers.slice(0, 5).join(', ')}${b.numbers.length > 5 ? ', …' : ''}` : ''}`;
  }
  if (inDoubt.length > 20) out += `\n… and ${inDoubt.length - 20} more batches in doubt`;
  ctx.stdout.write(`${out}\n`);
  const ui = createUi(ctx, opts);
  if (sending !== undefined) {
    ui.info(`it is sending now; once it ends, \`msgr runs show ${info.runId}\` says what it left, and how to continue`);
  } else if (!info.finished && !info.abandoned) {
    const t = h.target;
    const profile = t !== undefined && !t.sandbox && t.profile !== null ? savedProfile(ctx, t.profile, ui) : undefined;
    // Without a profile (or with another key than the profile's) the key came from the
    // environment or a file the journal does not name.
    const otherKey = t !== undefined && !t.sandbox && (t.profile === null || profile?.apiKey === undefined || keyFingerprint(profile.apiKey) !== t.keyFingerprint);
    const key = otherKey ? ' (with the API key as the run had it: MSGR_API_KEY, --api-key-file or --api-key-stdin)' : '';
    ui.info(`continue it with: ${continueCommand(ctx, journal, h, profile)}${key}`);
  }
}

/**
 * The command that resumes a run from its journal: a journal kept anywhere but its file's own
 * run folder (`--journal`, stdin) must be named, or the resume would look in that folder and
 * find another run or none (README: "Nothing lost, nothing sent twice"). A resume sends where the
 * run sent but does not read that from the journal: a run without a profile is given its base
 * URL, which came from --base-url or MSGR_BASE_URL; a run with one, the base URL and account it
 * had when the profile does not give them (a flag or the environment did), or a resume with
 * -p alone would be refused as another target (README: "`msgr runs`").
 */
function continueCommand(ctx: Context, journal: string, h: RunHeader, profile: Profile | undefined): string {
  const t = h.target;
  const sandbox = t?.sandbox === true;
  const own = h.input.stdin ? undefined : join(runDirFor(state(ctx), realFile(h.input.path), sandbox), 'journal.jsonl');
  let baseUrl: string | undefined;
  let account: string | undefined;
  if (t !== undefined && !t.sandbox) {
    if (t.profile === null || profile?.baseUrl === undefined || !sameBaseUrl(profile.baseUrl, t.baseUrl)) baseUrl = t.baseUrl;
    if (t.profile !== null && t.account !== null && profile?.account !== t.account) account = t.account;
  }
  return buildResumeCommand(
    { file: h.input.path, profile: t?.profile ?? undefined, baseUrl, account, sandbox, concurrency: DEFAULT_CONCURRENCY, yes: false, journal: journal === own ? undefined : journal, once: h.once?.key },
    h.input.path,
    h.input.stdin,
    journal,
  );
}

/** The profile as saved now; undefined when it is gone or the store cannot be read (the command then names everything). */
function savedProfile(ctx: Context, name: string, ui: Ui): Profile | undefined {
  try {
    return getProfile(loadStore(ctx, (line) => ui.warn(line)).data, name);
  } catch {
    return undefined;
  }
}

export async function runReport(ctx: Context, ref: string, opts: RunsOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const journal = findRun(state(ctx), ctx.cwd, ref, 'runs report');
  const path = resolve(ctx.cwd, opts.report ?? '');
  // Never over the journal, the CSV or the --exclude list the report is made from.
  const header = readHeader(journal);
  refuseReportOver(path, [
    ["the run's journal", journal],
    ["the run's CSV file", header !== undefined && !header.input.stdin ? header.input.path : undefined],
    ["the run's --exclude list", header?.shape.exclude?.path],
  ]);
  const writer = new ReportWriter(path, ctx.pid);
  // A signal quits this command at once (nothing is in flight): the file at the path stays as it was.
  ctx.atQuit(() => writer.discard());
  try {
    const r = await writeRunReport(ctx, journal, writer, (line) => ui.debug(line));
    writer.close();
    if (!r.complete) ui.warn(`${r.partialBecause ?? 'the input file changed'}: the report lists the ${formatCount(r.rows)} rows the run sent (rows it skipped or never sent are not in it)`);
    ui.success(`wrote ${formatCount(r.rows)} row${r.rows === 1 ? '' : 's'} to ${path} (${formatCount(r.withIds)} with a message id)`);
    if (opts.json) {
      const doc = { runId: header?.runId ?? null, journal, report: path, rows: r.rows, withIds: r.withIds, complete: r.complete, partialBecause: r.partialBecause ?? null };
      ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    }
  } finally {
    // Closed above once complete; a failure or a stop leaves the file at the path as it was.
    writer.discard();
  }
}

export async function runPrune(ctx: Context, opts: RunsOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const r = await pruneRuns(state(ctx), opts.olderThanMs ?? Number.POSITIVE_INFINITY, ctx, opts.dryRun);
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ dryRun: opts.dryRun, removed: r.removed, keptUnfinished: r.keptUnfinished, keptNeeded: r.keptNeeded, keptElsewhere: r.keptElsewhere }, null, 2)}\n`);
    return;
  }
  const verb = opts.dryRun ? 'would remove' : 'removed';
  for (const run of r.removed) ctx.stdout.write(`${verb} ${run.runId}  ${run.file}  ${run.journal}\n`);
  ui.info(`${verb} ${formatCount(r.removed.length)} finished or abandoned run${r.removed.length === 1 ? '' : 's'}${opts.dryRun ? ' (dry run: nothing was removed)' : ''}`);
  if (r.keptUnfinished.length > 0) ui.info(`kept ${formatCount(r.keptUnfinished.length)} unfinished run${r.keptUnfinished.length === 1 ? '' : 's'} as old (\`msgr runs list\`): resume them, or delete their journals by hand`);
  if (r.keptElsewhere.length > 0) {
    const n = r.keptElsewhere.length;
    ui.info(`kept ${formatCount(n)} finished run${n === 1 ? '' : 's'} whose journal${n === 1 ? ' is' : 's are'} kept by --journal outside msgr's folder (yours to delete): ${r.keptElsewhere.slice(0, 3).map((x) => x.journal).join(', ')}${n > 3 ? ', …' : ''}`);
  }
  if (r.keptNeeded.length > 0) ui.info(`kept ${formatCount(r.keptNeeded.length)} finished or abandoned run${r.keptNeeded.length === 1 ? '' : 's'} that a run kept leaves out the numbers of (its --resume and \`msgr runs report\` read them)`);
}
