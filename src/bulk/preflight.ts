// The preflight pass (issue: "Preflight, always, before the first request"): every row is read
// and checked before anything is sent; problems are kept with their line and column (the first
// few in memory, the rest counted); duplicates and opted-out numbers are set aside; the verdict
// per row, with the recipient's JSON, goes to the spool file for the send pass. Also hashes the file, so --resume can refuse
// a file that changed.
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { planColumns, recipientJson, type ColumnOptions, type ColumnPlan } from './columns.js';
import type { NumberCheck, NumberChecker } from './number-check.js';
import { NumberSet, numberKey } from './number-set.js';
import type { SpoolWriter } from './spool.js';
import { readCsv, type CsvFormat } from './reader.js';

export interface RowProblem {
  readonly line: number;
  readonly column: string;
  readonly message: string;
}

export interface PreflightOptions {
  readonly path: string;
  readonly fileLabel: string;
  readonly format: CsvFormat;
  readonly columns: ColumnOptions;
  readonly checker: NumberChecker;
  readonly allowDuplicates: boolean;
  readonly exclude?: NumberSet | undefined;
  readonly batchSize: number;
  /** The file's size in bytes, to size the duplicate set once instead of growing it. */
  readonly fileBytes?: number;
  /** Where the verdicts and recipient JSON go for the send pass; none for a dry run. */
  readonly spool?: SpoolWriter | undefined;
  /** Checked between chunks; throw to stop. */
  readonly checkpoint?: () => void;
  readonly maxProblems?: number;
}

export interface PreflightResult {
  readonly columns: ColumnPlan;
  readonly rows: number;
  readonly valid: number;
  readonly invalid: number;
  readonly duplicates: number;
  readonly excluded: number;
  /** Possible numbers outside the known numbering plan: sent, with a warning. */
  readonly outsidePlan: number;
  readonly toSend: number;
  readonly requests: number;
  readonly problems: readonly RowProblem[];
  readonly outsideSamples: ReadonlyArray<{ line: number; number: string }>;
  /** The first request's recipients (for --dry-run). */
  readonly firstBatch: readonly string[];
  /** sha256 of the bytes read (after any BOM). */
  readonly hash: string;
  readonly bytes: number;
}

export async function runPreflight(o: PreflightOptions): Promise<PreflightResult> {
  const maxProblems = o.maxProblems ?? 20;
  const hash = createHash('sha256');
  const estimate = o.format.lineBytes > 0 && o.fileBytes !== undefined ? Math.ceil((o.fileBytes / o.format.lineBytes) * 1.05) : 0;
  const seen = o.allowDuplicates ? undefined : new NumberSet(Math.min(Math.max(estimate, 1024), 1 << 24));
  const problems: RowProblem[] = [];
  const outsideSamples: Array<{ line: number; number: string }> = [];
  const firstBatch: string[] = [];
  const checkUtf8 = o.format.encoding === 'utf8';
  let columns: ColumnPlan | undefined;
  let rows = 0;
  let invalid = 0;
  let duplicates = 0;
  let excluded = 0;
  let outsidePlan = 0;
  let toSend = 0;

  const problem = (line: number, raw: string, column: string, message: string): void => {
    invalid++;
    if (problems.length < maxProblems) problems.push({ line, column, message });
    o.spool?.invalid(line, raw, column !== '' ? `${column}: ${message}` : message);
  };
  let checkRow: RowChecker | undefined;

  const result = await readCsv(o.path, {
    format: o.format,
    onBytes: (chunk) => hash.update(chunk),
    onHeader: (fields) => {
      columns = planColumns(fields, o.columns, o.fileLabel);
      checkRow = createRowChecker(columns, o.checker, checkUtf8);
    },
    onRecord: (fields, _index, line) => {
      rows++;
      const plan = columns as ColumnPlan;
      const r = (checkRow as RowChecker)(fields);
      if (r.verdict === 'invalid') {
        problem(line, (fields[plan.msisdn] ?? '').trim(), r.column ?? '', r.reason ?? 'is not a phone number');
        return;
      }
      if (r.verdict === 'outside') {
        outsidePlan++;
        if (outsideSamples.length < 5) outsideSamples.push({ line, number: r.e164 });
      }
      const key = numberKey(r.e164);
      if (o.exclude?.has(key) === true) {
        excluded++;
        o.spool?.skip('X', line, r.e164);
        return;
      }
      if (seen !== undefined && !seen.add(key)) {
        duplicates++;
        o.spool?.skip('D', line, r.e164);
        return;
      }
      toSend++;
      if (o.spool !== undefined || firstBatch.length < o.batchSize) {
        const json = recipientJson(plan, r.e164, fields);
        o.spool?.send(line, r.e164, json);
        if (firstBatch.length < o.batchSize) firstBatch.push(json);
      }
    },
    afterChunk: o.checkpoint,
  });
  if (columns === undefined) {
    throw new UsageError(`${o.fileLabel} is empty: it has no header row`, { hint: 'The first line names the columns, for example: msisdn,name' });
  }
  return {
    columns,
    rows,
    valid: rows - invalid,
    invalid,
    duplicates,
    excluded,
    outsidePlan,
    toSend,
    requests: Math.ceil(toSend / o.batchSize),
    problems,
    outsideSamples,
    firstBatch,
    hash: hash.digest('hex'),
    bytes: result.bytes,
  };
}

export type RowCheck = NumberCheck & { readonly column?: string };
export type RowChecker = (fields: readonly string[]) => RowCheck;

/**
 * One row's verdict: its shape (as many fields as the header; extra empty ones are tolerated,
 * a trailing comma is common), its text (not valid UTF-8 shows as U+FFFD), then its number.
 */
export function createRowChecker(columns: ColumnPlan, checker: NumberChecker, checkUtf8: boolean): RowChecker {
  const width = columns.header.length;
  const used = [columns.msisdn, ...columns.vars, ...columns.meta];
  return (fields) => {
    if (fields.length !== width && (fields.length < width || fields.slice(width).some((f) => f !== ''))) {
      return { verdict: 'invalid', e164: '', reason: `has ${fields.length} field${fields.length === 1 ? '' : 's'} where the header has ${width}` };
    }
    if (checkUtf8) {
      for (const i of used) {
        if ((fields[i] as string).includes('\uFFFD')) {
          return { verdict: 'invalid', e164: '', column: columns.header[i] ?? '', reason: 'is not valid UTF-8 text (is the file Latin-1? try --encoding latin1)' };
        }
      }
    }
    const r = checker.check(fields[columns.msisdn] as string);
    return r.verdict === 'invalid' ? { ...r, column: columns.msisdnName } : r;
  };
}
