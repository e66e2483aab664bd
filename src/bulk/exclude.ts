// `--exclude FILE`: opted-out numbers, one per line or a CSV with a number column (issue:
// "Preflight"). Numbers are normalised like the input's, so `07700 900123` with
// --default-country GB excludes `+447700900123`.
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { NUMBER_COLUMNS } from './columns.js';
import type { NumberChecker } from './number-check.js';
import { NumberSet, numberKey } from './number-set.js';
import { CsvInputError, detectFormat, readCsv } from './reader.js';

export interface ExcludeList {
  readonly set: NumberSet;
  readonly numbers: number;
  readonly unreadable: number;
  readonly firstUnreadable?: { line: number; reason: string };
  readonly hash: string;
}

export async function loadExcludes(path: string, checker: NumberChecker): Promise<ExcludeList> {
  let format;
  try {
    format = await detectFormat(path, {});
  } catch (err) {
    throw new UsageError(`--exclude: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const set = new NumberSet(1024);
  const hash = createHash('sha256');
  let column = 0;
  let unreadable = 0;
  let firstUnreadable: { line: number; reason: string } | undefined;
  const add = (raw: string | undefined, line: number): void => {
    const value = (raw ?? '').trim();
    if (value === '') return;
    const r = checker.check(value);
    if (r.verdict === 'invalid') {
      unreadable++;
      firstUnreadable ??= { line, reason: r.reason ?? 'not a number' };
      return;
    }
    set.add(numberKey(r.e164));
  };
  try {
    await readCsv(path, {
      format,
      onBytes: (chunk) => hash.update(chunk),
      onHeader: (fields) => {
        const lower = fields.map((f) => f.replace(/^\uFEFF/, '').trim().toLowerCase());
        for (const name of NUMBER_COLUMNS) {
          const i = lower.indexOf(name);
          if (i !== -1) {
            column = i;
            return;
          }
        }
        // No header name: a plain list of numbers when the first line is one.
        if (checker.check((fields[0] ?? '').trim()).verdict !== 'invalid') {
          column = 0;
          add(fields[0], 1);
          return;
        }
        if (fields.length > 1) {
          throw new UsageError(`--exclude: ${path} has no number column: none of its headers is ${NUMBER_COLUMNS.join(', ')}`, {
            hint: 'Give one number per line, or a CSV whose number column is called msisdn, phone, mobile, number or to.',
          });
        }
      },
      onRecord: (fields, _index, line) => add(fields[column], line),
    });
  } catch (err) {
    if (err instanceof CsvInputError) throw new UsageError(`--exclude: ${path} ${err.message}`);
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string') throw new UsageError(`--exclude: cannot read ${path} (${code})`);
    throw err;
  }
  return { set, numbers: set.size, unreadable, ...(firstUnreadable !== undefined ? { firstUnreadable } : {}), hash: hash.digest('hex') };
}
