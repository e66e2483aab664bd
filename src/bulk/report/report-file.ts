// src/bulk/report/: the --report file. report-file.ts (this file) writes it, order.ts puts its lines in
// input order whatever order the answers come in. It imports journal/ only.
//
// `--report FILE`: one line per input row, in input order (docs/campaign-output.md: "Output"). `.csv` is written
// by a small RFC 4180 writer (fields with a delimiter, quote, CR or LF are quoted and quotes
// doubled); `.jsonl` has one JSON object a line. Writes are buffered and synchronous (TextFile),
// so lines come out in the order they are given.
import { accessSync, constants, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileProblem, UsageError } from '../../errors.js';
import { isNoSpace } from '../journal/writer.js';
import { shellQuote } from '../../output/shell.js';
import type { Ui } from '../../output/ui.js';
import { sameFile } from '../../files/same-file.js';
import { TextFile } from '../../files/text-writer.js';
import { readHeader } from '../journal/load.js';
import type { Purpose } from '../campaign.js';
import { FLAG, purposeFlag } from '../flag-names.js';

/** `suppressed`: the number is in the opt-out store (docs/optouts.md); `excluded`: on the --exclude list. */
export type RowOutcome = 'accepted' | 'rejected' | 'invalid' | 'duplicate' | 'excluded' | 'suppressed' | 'already-sent' | 'filtered' | 'in-doubt' | 'not-sent';

export interface ReportRow {
  readonly line: number;
  readonly number: string;
  readonly outcome: RowOutcome;
  readonly status?: number | undefined;
  readonly messageId?: string | undefined;
  readonly error?: string | undefined;
  /**
   * `msgr runs report`: what the receipts say of the row's message (docs/events.md: "Delivery in
   * runs"); undefined for a row with no message id of the run's.
   */
  readonly delivery?: { readonly status: string; readonly at?: string | undefined; readonly errorCode?: string | undefined } | undefined;
}

export type ReportFormat = 'csv' | 'jsonl';

export function reportFormat(path: string): ReportFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  throw new UsageError(`${FLAG.report}: "${path}" must end in .csv or .jsonl`, { hint: 'The extension chooses the format: report.csv or report.jsonl.' });
}

/** Quotes a CSV field when it needs it (RFC 4180). */
export function csvField(value: string): string {
  if (/[",\r\n]/.test(value) || value !== value.trim()) return `"${value.replace(/"/g, '""')}"`;
  return value;
}

/**
 * A cell a spreadsheet would read as a formula, with a `'` before it so it is read as text
 * (docs/contract.md: "Security": the report's cells come from the input file and the server). Every text
 * cell of the CSV report goes through here. `=`, `@`, a tab or a CR start a formula; so do `+`
 * and `-`, except in a cell that is a phone number as written (digits, spaces, brackets, dots,
 * dashes, slashes and the direction marks a contact card adds), so numbers such as
 * `+447911123456` and `+44 (0)7911 123456` are written exactly as they are, while
 * `+1+cmd|' /C calc'!A0` is not.
 */
export function defuse(text: string): string {
  if (/^[=@\t\r]/.test(text)) return `'${text}`;
  if (/^[+-]/.test(text) && !/^[+-][\d (][\d\s()./\u200e\u200f\u202a-\u202e\u2066-\u2069-]*$/.test(text)) return `'${text}`;
  return text;
}

/** A text cell of the CSV report: defused, then quoted when it needs it. */
function cell(value: string): string {
  return csvField(defuse(value));
}

export const CSV_HEADER = 'line,number,outcome,status,message_id,error,request_fields';

/** Outcomes of rows whose request this run built: their `request_fields` say what it carried. */
const BUILT: ReadonlySet<string> = new Set(['accepted', 'rejected', 'in-doubt', 'not-sent']);

/**
 * What each recipient's request carries (docs/campaign-output.md: "The report"): `msisdn`, then each
 * `variables.NAME` and `metaData.NAME` the run's columns put beside it. The same for every row a
 * run sends: the columns are the run's, not the row's.
 */
export function requestFields(vars: readonly string[], meta: readonly string[]): string[] {
  return ['msisdn', ...vars.map((n) => `variables.${n}`), ...meta.map((n) => `metaData.${n}`)];
}

/** The columns `msgr runs report` adds: the delivery state of the row's message, when, and a failure's code. */
export const DELIVERY_COLUMNS = 'delivery,delivery_at,delivery_error';

/**
 * Where a report is written until it is complete: beside it (a rename within one folder is
 * atomic), named so that one left by a killed msgr says whose it is (docs/campaign-output.md: "Output").
 */
export function reportTempPath(path: string, pid: number): string {
  return join(dirname(path), `${basename(path)}.msgr-${pid}.partial`);
}

/**
 * Removes the partial files of `report` whose process is no longer alive: a killed run's left
 * behind, which nothing else would ever remove. The process id in the name is checked on this
 * host (docs/campaign-output.md: "Output"); a live one's file, and this process's, are left alone.
 */
function removeDeadPartials(report: string, pid: number, isProcessAlive: (pid: number) => boolean): void {
  const prefix = `${basename(report)}.msgr-`;
  let names: string[];
  try {
    names = readdirSync(dirname(report));
  } catch {
    return; // The constructor says what is wrong with the folder.
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.partial')) continue;
    const owner = name.slice(prefix.length, -'.partial'.length);
    if (!/^\d+$/.test(owner) || Number(owner) === pid || isProcessAlive(Number(owner))) continue;
    rmSync(join(dirname(report), name), { force: true });
  }
}

/**
 * Writes a report into a temporary file beside it and renames that over the report only once
 * complete (close): a run stopped at once, killed, or out of space leaves the earlier report as
 * it was, never an empty or half one.
 */
export class ReportWriter {
  readonly path: string;
  readonly format: ReportFormat;
  readonly #file: TextFile;
  /** The permissions of the file at the report's path, if there is one. */
  readonly #mode: number | undefined;
  /** The file renamed over: the report, or what a symbolic link there points to. */
  readonly #target: string;
  readonly #temp: string;
  #done = false;
  /** With the delivery columns (`msgr runs report`). */
  readonly #delivery: boolean;
  /** What the requests of the run's rows carry (requestFields), said once it is known. */
  #fields: readonly string[] = ['msisdn'];
  rows = 0;

  /**
   * `isProcessAlive`, when given: the partial files beside the report that killed msgr processes
   * of this host left (`kill -9`, a power cut) are removed (removeDeadPartials).
   */
  constructor(path: string, pid: number, options: { readonly delivery?: boolean; readonly isProcessAlive?: (pid: number) => boolean } = {}) {
    this.#delivery = options.delivery === true;
    const isProcessAlive = options.isProcessAlive;
    this.format = reportFormat(path);
    this.path = path;
    // The folder the report goes in: a link's, once followed.
    let folder = dirname(path);
    try {
      const target = existingTarget(path);
      this.#target = target.path;
      folder = dirname(target.path);
      this.#temp = reportTempPath(this.#target, pid);
      if (isProcessAlive !== undefined) removeDeadPartials(this.#target, pid, isProcessAlive);
      // Created, never opened through whatever is at its path: a link planted in a shared folder
      // is not followed. One left by a killed run of the same process id is msgr's: replaced.
      try {
        this.#file = new TextFile(this.#temp, true);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        rmSync(this.#temp, { force: true });
        this.#file = new TextFile(this.#temp, true);
      }
      this.#mode = target.mode;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? `there is no folder ${folder}` : fileProblem(err);
      throw new UsageError(`${FLAG.report}: cannot write ${path} (${why})`, { hint: 'Give a report path in a folder that exists and that you can write to.' });
    }
    if (this.format === 'csv') this.#file.write(`${CSV_HEADER}${this.#delivery ? `,${DELIVERY_COLUMNS}` : ''}\n`);
  }

  /** The fields every request of the run carries per recipient (requestFields). */
  carries(fields: readonly string[]): void {
    this.#fields = fields;
  }

  write(row: ReportRow): void {
    this.rows++;
    const fields = BUILT.has(row.outcome) ? this.#fields : undefined;
    if (this.format === 'csv') {
      const d = row.delivery;
      const delivery = this.#delivery ? `,${d?.status ?? ''},${d?.at ?? ''},${cell(d?.errorCode ?? '')}` : '';
      this.#file.write(`${row.line},${cell(row.number)},${row.outcome},${row.status ?? ''},${cell(row.messageId ?? '')},${cell(row.error ?? '')},${cell(fields?.join('; ') ?? '')}${delivery}\n`);
    } else {
      this.#file.write(
        `${JSON.stringify({
          line: row.line,
          number: row.number,
          outcome: row.outcome,
          status: row.status ?? null,
          messageId: row.messageId ?? null,
          error: row.error ?? null,
          requestFields: fields ?? null,
          ...(this.#delivery ? { delivery: row.delivery?.status ?? null, deliveryAt: row.delivery?.at ?? null, deliveryError: row.delivery?.errorCode ?? null } : {}),
        })}\n`,
      );
    }
  }

  flush(): void {
    this.#file.flush();
  }

  /** The report is complete: it replaces the file at its path. On a failure nothing is replaced. */
  close(): void {
    if (this.#done) return;
    try {
      // Written as the owner's alone (it lists phone numbers); once whole, it takes the
      // permissions of the report it replaces, as writing over that file kept them.
      if (this.#mode !== undefined) this.#file.chmod(this.#mode);
      this.#file.close();
      // Rows were lost with a write that failed (and was caught further up): the report is not whole.
      if (this.#file.failed !== undefined) throw this.#file.failed;
      renameSync(this.#temp, this.#target);
      this.#done = true;
    } catch (err) {
      this.discard();
      throw err;
    }
  }

  /** The report will not be complete (the run failed, or stopped before it): the file at its path is left as it was. */
  discard(): void {
    if (this.#done) return;
    this.#done = true;
    try {
      this.#file.abandon();
    } finally {
      rmSync(this.#temp, { force: true });
    }
  }
}

/**
 * The file a report replaces: through a symbolic link, what it points to. A folder, or a file
 * this user may not write, is refused now, as opening it would have been, not after the run.
 */
function existingTarget(path: string): { path: string; mode?: number } {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path: danglingTarget(path) };
    throw err;
  }
  const st = statSync(real);
  if (st.isDirectory()) throw new UsageError(`${FLAG.report}: ${path} is a folder`, { hint: `Give the report a file name, for example ${FLAG.report} report.csv.` });
  accessSync(real, constants.W_OK);
  return { path: real, mode: st.mode & 0o777 };
}

/**
 * Where a new report goes: `path`, or the file a link there names that does not exist yet (it is
 * created there, as opening the path would have; the link stays). Links are followed a few deep.
 */
function danglingTarget(path: string): string {
  let at = path;
  for (let hops = 0; hops < 40; hops++) {
    let to: string;
    try {
      to = readlinkSync(at);
    } catch {
      return at;
    }
    at = resolve(dirname(at), to);
  }
  return at;
}

/**
 * Refuses a --report naming one of `reads` (what, path): opening the report empties the file, so
 * never over one the run or report is made from.
 */
export function refuseReportOver(path: string, reads: readonly (readonly [what: string, path: string | undefined])[]): void {
  for (const [what, read] of reads) {
    if (read !== undefined && sameFile(path, read)) {
      throw new UsageError(`${FLAG.report}: ${path} is ${what}; writing the report there would overwrite it`, { hint: `Give the report a file name of its own, for example ${FLAG.report} report.csv.` });
    }
  }
  // Any run's journal, not only this one's: it is what --resume, --skip-sent and msgr runs read.
  const journal = readHeader(path);
  if (journal !== undefined) {
    throw new UsageError(`${FLAG.report}: ${path} is the journal of run ${journal.runId}; writing the report there would overwrite it`, { hint: `Give the report a file name of its own, for example ${FLAG.report} report.csv.` });
  }
}

/**
 * A run's --report, opened before the preflight so a bad path fails before anything else (and
 * before a journal exists). A dry run only checks the name; a preview or a sample (the command's
 * purpose) sends nothing of the campaign, so there is nothing to report. `reads` are the files the
 * run reads or keeps (the CSV, the --exclude list, ...): the report is never one of them, since
 * opening it empties it (an emptied opt-out list would exclude nobody).
 */
export function openRunReport(
  path: string,
  o: { purpose: Purpose; reads: readonly (readonly [what: string, path: string | undefined])[]; pid: number; isProcessAlive: (pid: number) => boolean },
  defer: (cleanup: () => void) => void,
): ReportWriter | undefined {
  if (o.purpose.kind === 'preview' || o.purpose.kind === 'sample') {
    throw new UsageError(`${FLAG.report} cannot be used with ${purposeFlag(o.purpose) ?? ''}: nothing of the campaign is sent`, {
      hint: `Leave ${FLAG.report} out here and give it to the campaign's run${o.purpose.kind === 'sample' ? ` (the sample's ${FLAG.json} document lists each sample)` : ''}.`,
    });
  }
  refuseReportOver(path, o.reads);
  if (o.purpose.kind === 'dry-run') {
    reportFormat(path);
    return undefined;
  }
  const report = new ReportWriter(path, o.pid, { isProcessAlive: o.isProcessAlive });
  // Closed (renamed into place) where the run completes it; anything else leaves the old report.
  defer(() => report.discard());
  return report;
}

/**
 * Puts the completed report in place. With no room for it, the run's outcome stands (the journal
 * has every answer): the report at that path is left as it was, and the run says how to write it
 * later. False when no report was written.
 */
export function closeRunReport(ui: Pick<Ui, 'warn'>, report: ReportWriter | undefined, runId: string): boolean {
  if (report === undefined) return false;
  try {
    report.close();
    return true;
  } catch (err) {
    if (!isNoSpace(err)) throw err;
    ui.warn(`no space left in ${dirname(report.path)} for the report: ${report.path} was not written (a report already there is as it was); once there is room, write it with: msgr runs report ${runId} ${FLAG.report} ${shellQuote(report.path)}`);
    return false;
  }
}
