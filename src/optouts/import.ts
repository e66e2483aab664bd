// `msgr optout import FILE` (docs/optouts.md: "Commands"): a plain list (one number a
// line), a CSV with a number column (found by the names send-bulk knows, or --column), or the
// JSON lines of another store's export. Read by send-bulk's own CSV reader (encodings, `sep=`,
// mixed line ends) and numbers checked by the recipients' rules: an entry that is not a number
// stops the import before anything is written, because an opt-out that cannot be read cannot be
// honoured.
import { readFileSync } from 'node:fs';
import type { CountryCode } from 'libphonenumber-js/max';
import { fileHint, fileProblem, UsageError } from '../errors.js';
import { chooseNumberColumn, headerKey, noSuchColumn, NUMBER_COLUMNS_SHOWN } from '../csv/header.js';
import { CsvInputError, detectFormat, NotCsvError, readCsv } from '../csv/reader.js';
import { isSpreadsheetError, looksLikeNumber, normaliseNumber, OPT_OUT_NUMBERS } from '../message/numbers.js';
import type { Evidence, OptOutReason } from './store.js';

export interface ImportedEntry {
  readonly number: string;
  readonly line: number;
  /** From a store export: what it said. */
  readonly reason?: OptOutReason;
  readonly source?: string;
  readonly evidence?: Evidence;
}

export interface ImportOptions {
  readonly column?: string | undefined;
  readonly country?: CountryCode | undefined;
}

/** Entries shown when some are not numbers (all are counted). */
const SHOWN = 5;

export async function readOptOutFile(path: string, options: ImportOptions = {}): Promise<{ entries: ImportedEntry[]; column: string | undefined }> {
  let head: string;
  try {
    head = readFileSync(path, 'utf8').slice(0, 4096).replace(/^\ufeff/, '');
  } catch (err) {
    throw new UsageError(`cannot read ${path} (${fileProblem(err)})`, { hint: fileHint(err) });
  }
  const bad: string[] = [];
  let badCount = 0;
  const hints = new Set<string>();
  const entries: ImportedEntry[] = [];
  const take = (raw: string, line: number, extra: Partial<ImportedEntry> = {}): void => {
    const value = raw.trim();
    if (value === '' || value.startsWith('#')) return;
    const r = normaliseNumber(value, options.country, OPT_OUT_NUMBERS);
    if (!r.ok) {
      badCount++;
      if (bad.length < SHOWN) bad.push(`  line ${line}: ${r.reason}`);
      if (r.hint !== undefined) hints.add(r.hint);
      return;
    }
    entries.push({ ...extra, number: r.e164, line });
  };
  let column: string | undefined;
  if (head.trimStart().startsWith('{')) {
    // A store's export (`msgr optout export --format jsonl`): one entry a line.
    readFileSync(path, 'utf8').split('\n').forEach((text, i) => {
      if (text.trim() === '') return;
      let e: { number?: unknown; reason?: unknown; source?: unknown; evidence?: unknown };
      try {
        e = JSON.parse(text) as typeof e;
      } catch {
        badCount++;
        if (bad.length < SHOWN) bad.push(`  line ${i + 1}: not a JSON line`);
        return;
      }
      take(typeof e.number === 'string' ? e.number : '', i + 1, {
        ...(e.reason === 'undeliverable' ? { reason: 'undeliverable' as const } : {}),
        ...(typeof e.source === 'string' ? { source: e.source } : {}),
        ...(typeof e.evidence === 'object' && e.evidence !== null ? { evidence: e.evidence } : {}),
      });
    });
  } else {
    let col = 0;
    let first = true;
    try {
      const format = await detectFormat(path, { noHeader: true });
      await readCsv(path, {
        format,
        onRecord: (fields, _i, line) => {
          if (first) {
            first = false;
            const found = headerOf(fields, options.column, path);
            if (found !== undefined) {
              col = found.index;
              column = found.name;
              return;
            }
          }
          take(fields[col] ?? '', line);
        },
      });
    } catch (err) {
      if (err instanceof NotCsvError) throw new UsageError(`${path} ${err.message}; nothing was imported`, { hint: err.hint });
      if (err instanceof CsvInputError) throw new UsageError(`${path} ${err.message}; nothing was imported`, { hint: 'Fix the file and run again.' });
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot read ${path} (${fileProblem(err)})`, { hint: fileHint(err) });
    }
  }
  if (badCount > 0) {
    const more = badCount > bad.length ? `\n  … and ${badCount - bad.length} more` : '';
    throw new UsageError(`${path}: ${badCount} entr${badCount === 1 ? 'y is' : 'ies are'} not a phone number; nothing was imported:\n${bad.join('\n')}${more}`, {
      hint: [...hints, 'Every opt-out must be readable, or it could not be honoured: fix the file (or give --default-country for national numbers) and import again.'].join('\n      '),
    });
  }
  return { entries, column };
}

/**
 * The number column when the first record is a header: named by --column, found by the usual
 * names, or a one-column list's name (a word without digits). The index it takes, else undefined.
 */
function headerOf(fields: readonly string[], want: string | undefined, path: string): { index: number; name: string } | undefined {
  if (want !== undefined) {
    const i = fields.findIndex((f) => headerKey(f) === headerKey(want));
    if (i === -1) throw noSuchColumn('--column', path, want, fields, 'Its header line has');
    return { index: i, name: (fields[i] ?? '').trim() };
  }
  // The same choice as send-bulk's: a column whose name says mobile over a generic one, else refused.
  const found = chooseNumberColumn(fields, path, '--column').index;
  if (found !== -1) return { index: found, name: (fields[found] ?? '').trim() };
  const first = fields[0] ?? '';
  if (looksLikeNumber(first) || isSpreadsheetError(first) || /\d/.test(first)) return undefined;
  if (fields.length === 1) return { index: 0, name: first.trim() };
  throw new UsageError(`${path} has no number column: none of its headers is ${NUMBER_COLUMNS_SHOWN}`, { hint: 'Name the column with --column, or give one number per line.' });
}
