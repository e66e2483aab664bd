// `--exclude FILE`: opted-out numbers, one per line or a CSV with a number column (docs/campaign-input.md:
// "Preflight"). An opt-out that cannot be read cannot be honoured, so every entry must be a
// number, normalised by the recipients' own rules (`07911 123456` with --default-country GB
// excludes `+447911123456`); one that is not stops the run, with its line, as an invalid row does.
// A plain list has no header unless its first line is a name (not a number, and no digits in it).
import { createHash } from 'node:crypto';
import { fileHint, fileProblem, UsageError } from '../../errors.js';
import { isSpreadsheetError, looksLikeNumber } from '../../message/numbers.js';
import { chooseNumberColumn, headerKey, noSuchColumn, NUMBER_COLUMNS_SHOWN } from '../../csv/header.js';
import type { NumberChecker } from './number-check.js';
import { NumberSet, numberKey } from './number-set.js';
import { CsvInputError, detectFormat, NotCsvError, readCsv } from '../../csv/reader.js';
import { FLAG } from '../flag-names.js';
import { listingCostsLess } from '../../optouts/store.js';

export interface ExcludeList {
  readonly set: NumberSet;
  /** Distinct numbers on the list. */
  readonly numbers: number;
  /** The header of the number column; undefined for a list without a header. */
  readonly column: string | undefined;
  readonly hash: string;
}

export interface ExcludeOptions {
  /** The file as the user named it, for messages. */
  readonly label?: string;
  /** --exclude-column: the header of the number column of a CSV list. */
  readonly column?: string | undefined;
}

/** Entries shown when some are not numbers (all are counted). */
const SHOWN = 5;

export async function loadExcludes(path: string, checker: NumberChecker, options: ExcludeOptions = {}): Promise<ExcludeList> {
  const label = options.label ?? path;
  let format;
  try {
    // Every record reaches onRecord: the first decides whether there is a header.
    format = await detectFormat(path, { noHeader: true });
  } catch (err) {
    if (err instanceof NotCsvError) throw new UsageError(`${FLAG.exclude}: ${label} ${err.message}; nothing was sent`, { hint: err.hint });
    throw readError(label, err);
  }
  const set = new NumberSet(1024);
  const hash = createHash('sha256');
  let column = 0;
  let columnName: string | undefined;
  let bad = 0;
  const shown: string[] = [];
  const hints = new Set<string>();
  const add = (raw: string | undefined, line: number): void => {
    const value = (raw ?? '').trim();
    // An empty cell in a CSV list (a contact without a number) names nobody.
    if (value === '') return;
    const r = checker.checkOptOut(value);
    if (r.verdict === 'invalid') {
      bad++;
      if (shown.length < SHOWN) shown.push(`  line ${line}: ${r.reason ?? 'is not a phone number'}`);
      if (r.hint !== undefined) hints.add(r.hint);
      return;
    }
    set.add(numberKey(r.e164));
  };
  const header = (fields: readonly string[]): boolean => {
    if (options.column !== undefined) {
      const want = headerKey(options.column);
      column = fields.findIndex((f) => headerKey(f) === want);
      if (column === -1) throw noSuchColumn(FLAG.excludeColumn, label, options.column, fields, 'Its header line has');
      columnName = (fields[column] ?? '').trim();
      return true;
    }
    // As the recipients' column is found: a mobile name over a generic one, else no guess.
    const found = chooseNumberColumn(fields, `${FLAG.exclude}: ${label}`, FLAG.excludeColumn).index;
    if (found !== -1) {
      column = found;
      columnName = (fields[found] ?? '').trim();
      return true;
    }
    // A spreadsheet's error value (#NULL!) is a number it lost: an entry, refused, not a header.
    if (looksLikeNumber(fields[0] ?? '') || isSpreadsheetError(fields[0] ?? '')) return false;
    if (fields.length === 1) {
      // A header is a name: a first line with digits in it is an entry mistyped or annotated
      // (`+4479... # since May`), checked as an entry, not dropped as a header.
      if (/\d/.test(fields[0] ?? '')) return false;
      columnName = (fields[0] ?? '').trim();
      return true;
    }
    throw new UsageError(`${FLAG.exclude}: ${label} has no number column: none of its headers is ${NUMBER_COLUMNS_SHOWN}`, {
      hint: `Name the column with ${FLAG.excludeColumn}, or give one number per line.`,
    });
  };
  try {
    await readCsv(path, {
      format,
      onBytes: (chunk) => hash.update(chunk),
      onRecord: (fields, index, line) => {
        if (index === 0 && header(fields)) return;
        add(fields[column], line);
      },
    });
  } catch (err) {
    if (err instanceof CsvInputError) throw new UsageError(`${FLAG.exclude}: ${label} ${err.message}; nothing was sent`, { hint: 'Fix the file and run again.' });
    if (err instanceof UsageError) throw err;
    throw readError(label, err);
  }
  if (bad > 0) {
    const more = bad > shown.length ? `\n  … and ${bad - shown.length} more` : '';
    throw new UsageError(`${FLAG.exclude}: ${label}: ${bad} entr${bad === 1 ? 'y is' : 'ies are'} not a phone number; nothing was sent:\n${shown.join('\n')}${more}`, {
      hint: [...hints, 'Every opt-out must be readable, or it could not be honoured: fix the list and run again.'].join('\n      '),
    });
  }
  hash.update(`\ncolumn:${columnName ?? ''}`);
  return { set, numbers: set.size, column: columnName, hash: hash.digest('hex') };
}

function readError(label: string, err: unknown): UsageError {
  return new UsageError(`${FLAG.exclude}: cannot read ${label} (${fileProblem(err)})`, { hint: fileHint(err) });
}

/**
 * Why a number is left out, as the value it has in the preflight's one set of numbers not to
 * message (leaveOutSet): one probe per row, whichever list a number is on. `undecided`: a possible
 * opt-out no one has decided on (docs/optouts.md): the run stops rather than send to it.
 */
export const LEAVE_OUT = { excluded: 0, optedOut: 1, undecided: 2 } as const;

/** A list's answer for one number, by its key (numberKey): a NumberSet, or a probe of the opt-out store. */
export interface KeyProbe {
  has(key: number): boolean;
}

/** A list as a run started, asked number by number, or listed whole in one set. */
export interface ListAtStart extends KeyProbe {
  /** How many numbers listing it reads (its size, or the store's). */
  readonly numbers: number;
  /** Every number on it, in one set (asked after this, `has` answers from it). */
  listed(): NumberSet;
}


/** The preflight's question of each row's number: why it is left out (LEAVE_OUT); undefined: it is not. */
export interface LeaveOutProbe {
  get(key: number): number | undefined;
}

/**
 * Why a number is left out, whichever way each list answers: the --exclude list first, then the
 * opt-out store, then its possible opt-outs not decided yet (docs/optouts.md). A number on several
 * is counted as the first of them, as it was before the store applied. The one rule of
 * leaveOutSet and LeaveOutRule.
 */
export function whyLeftOut(key: number, exclude: KeyProbe | undefined, optedOut: KeyProbe | undefined, undecided: KeyProbe | undefined): number | undefined {
  if (exclude?.has(key) === true) return LEAVE_OUT.excluded;
  if (optedOut?.has(key) === true) return LEAVE_OUT.optedOut;
  if (undecided?.has(key) === true) return LEAVE_OUT.undecided;
  return undefined;
}

/**
 * The numbers the preflight leaves out, each with why (whyLeftOut), in one set: the --exclude
 * list's (excluded), the opt-out store's (opted out; docs/optouts.md) and its possible opt-outs not
 * decided yet. Undefined when none has a number.
 */
export function leaveOutSet(exclude: NumberSet | undefined, optedOut: NumberSet | undefined, undecided?: NumberSet): NumberSet | undefined {
  if ((optedOut?.size ?? 0) === 0 && (undecided?.size ?? 0) === 0) return exclude;
  const set = new NumberSet(Math.max(16, (exclude?.size ?? 0) + (optedOut?.size ?? 0) + (undecided?.size ?? 0)));
  const add = (key: number): void => {
    if (set.has(key)) return;
    set.addValued(key, whyLeftOut(key, exclude, optedOut, undecided) ?? LEAVE_OUT.excluded);
  };
  exclude?.forEach(add);
  optedOut?.forEach(add);
  undecided?.forEach(add);
  return set;
}

/**
 * What the preflight leaves out (whyLeftOut), asked of each row. In the pass's own thread each
 * list answers as it is kept: the opt-out store by a probe of its index, a few small reads a row,
 * however many numbers it holds, unless listing it costs less (a small store, many rows: prepare).
 * A pass in worker threads (a big file) cannot probe the store: it is given every number in one
 * set (`listed`), whose making then costs little against the file's.
 */
export class LeaveOutRule implements LeaveOutProbe {
  readonly #exclude: NumberSet | undefined;
  readonly #optedOut: ListAtStart | undefined;
  readonly #undecided: ListAtStart | undefined;
  readonly #release: (() => void) | undefined;
  #listed: { set: NumberSet | undefined } | undefined;

  /** `release`: what the lists hold open to be asked (the store's index), let go after a pass. */
  constructor(exclude: NumberSet | undefined, optedOut?: ListAtStart, undecided?: ListAtStart, release?: () => void) {
    this.#exclude = exclude;
    this.#optedOut = optedOut;
    this.#undecided = undecided;
    this.#release = release;
  }

  /** Lets go of what the lists hold open; asked again, they open it again. */
  release(): void {
    this.#release?.();
  }

  get(key: number): number | undefined {
    return this.#listed !== undefined ? this.#listed.set?.get(key) : whyLeftOut(key, this.#exclude, this.#optedOut, this.#undecided);
  }

  /**
   * Before a pass asks about `rows` numbers (Infinity: a pass in worker threads, which is given
   * them listed): the lists are listed now when that costs less than asking (listingCostsLess).
   */
  prepare(rows: number): void {
    if (listingCostsLess((this.#optedOut?.numbers ?? 0) + (this.#undecided?.numbers ?? 0), rows)) this.listed();
  }

  /** Every number left out, in one set, each valued with why; undefined when there is none. */
  listed(): NumberSet | undefined {
    this.#listed ??= { set: leaveOutSet(this.#exclude, this.#optedOut?.listed(), this.#undecided?.listed()) };
    return this.#listed.set;
  }
}

/** A list already in one set, as a ListAtStart. */
export function listAtStart(set: NumberSet): ListAtStart {
  return { numbers: set.size, has: (key) => set.has(key), listed: () => set };
}
