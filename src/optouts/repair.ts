// `msgr optout repair` (docs/optouts.md: "Damage and repair"): a store with lines that are not
// records (store-lines.ts) stops every send until a person repairs it. Repair is one step: a line that
// reads as a phone number (typed in by hand, with or without a `#` comment), or a record cut short
// or gone wrong that still names an opt-out's number (store-lines.ts: numberNamed), becomes an opt-out of
// that number, since that is what someone meant by writing it there; any other line is set aside
// in a file beside the store, never dropped; the file as it was is kept beside it too. Records are
// kept byte for byte, in their order; the repaired store is written aside and renamed into place
// under the store's lock, so no reader sees half of it (readers notice the new file: store.ts).
import { closeSync, copyFileSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import type { CountryCode } from 'libphonenumber-js/max';
import { normaliseNumber, OPT_OUT_NUMBERS } from '../message/numbers.js';
import { numberNamed, readStoreLines, STORE_VERSION, timeNamed, type OptOutRecord } from './store-lines.js';
import { storeWriteError, withStoreLock, type StoreWriter } from './store.js';

/** How a line that is not a record named its number: typed by hand, or in a record not whole. */
export type NumberFrom = 'typed' | 'part of a record';

export interface RepairResult {
  readonly path: string;
  /** Numbers read on lines that were not records: opted out now (`already`: they were). */
  readonly numbers: ReadonlyArray<{ readonly line: number; readonly number: string; readonly already: boolean; readonly from: NumberFrom }>;
  /** Lines that were neither a record nor a number, set aside (with why). */
  readonly setAside: ReadonlyArray<{ readonly line: number; readonly text: string; readonly why: string }>;
  /**
   * Lines that read as national numbers while no country was given: nothing was changed, as
   * setting them aside would let those people be messaged; the repair needs --default-country.
   */
  readonly national: ReadonlyArray<{ readonly line: number; readonly text: string }>;
  /** Where they went; undefined when none. */
  readonly setAsideFile: string | undefined;
  /** The store as it was; undefined when there was nothing to repair. */
  readonly backup: string | undefined;
}

/** A file-name-safe time: 20300101T090000Z. */
function stamp(at: Date): string {
  return at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

export async function repairStore(path: string, writer: StoreWriter, country: CountryCode | undefined): Promise<RepairResult> {
  return withStoreLock(path, writer, () => {
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path, numbers: [], setAside: [], national: [], setAsideFile: undefined, backup: undefined };
      throw storeWriteError(path, err);
    }
    const read = readStoreLines(buf);
    const tornText = read.torn > 0 ? buf.toString('utf8', buf.length - read.torn) : undefined;
    if (read.bad.length === 0 && tornText === undefined) return { path, numbers: [], setAside: [], national: [], setAsideFile: undefined, backup: undefined };
    // Whether each number is opted out now, by the records kept.
    const out = new Map<string, boolean>();
    for (const { record } of read.records) if (record.op === 'add' || record.op === 'remove') out.set(record.number, record.op === 'add');
    const numbers: Array<{ line: number; number: string; already: boolean; from: NumberFrom; text: string }> = [];
    const setAside: Array<{ line: number; text: string; why: string }> = [];
    const national: Array<{ line: number; text: string }> = [];
    const optOut = (line: number, number: string, from: NumberFrom, text: string): void => {
      numbers.push({ line, number, already: out.get(number) === true || numbers.some((n) => n.number === number), from, text });
    };
    for (const b of read.bad) {
      const named = numberNamed(b.text);
      if (named !== undefined) {
        optOut(b.line, named, 'part of a record', b.text);
        continue;
      }
      const value = b.text.replace(/#.*$/, '').trim().replace(/[,;]+$/, '');
      const r = value === '' ? undefined : normaliseNumber(value, country, OPT_OUT_NUMBERS);
      if (r?.ok === true) {
        optOut(b.line, r.e164, 'typed', b.text);
      } else {
        if (r?.cause === 'national') national.push({ line: b.line, text: b.text });
        setAside.push({ line: b.line, text: b.text, why: r === undefined ? 'no number on it' : r.reason });
      }
    }
    if (national.length > 0) return { path, numbers: [], setAside: [], national, setAsideFile: undefined, backup: undefined };
    if (tornText !== undefined) {
      const named = numberNamed(tornText);
      if (named !== undefined) optOut(read.lines + 1, named, 'part of a record', tornText);
      // Kept with what is set aside too: the bytes as they were, beside the opt-out made of them.
      setAside.push({ line: read.lines + 1, text: tornText, why: named !== undefined ? `cut short; ${named} is opted out from it` : 'a write cut short' });
    }
    const now = writer.now();
    const at = now.toISOString();
    const lines = read.records.map(({ line }) => line);
    const text = buf.toString('utf8').split('\n');
    let content = lines.map((l) => `${(text[l - 1] ?? '').replace(/\r$/, '')}\n`).join('');
    for (const n of numbers) {
      if (n.already) continue;
      // A record cut short keeps the time it gives, when it gives one: since when is the point.
      const record: OptOutRecord = { v: STORE_VERSION, op: 'add', number: n.number, at: n.from === 'part of a record' ? timeNamed(n.text, now) : at, reason: 'opt-out', source: 'manual', evidence: { note: n.from === 'typed' ? `typed into the store by hand (line ${n.line})` : `named on line ${n.line}, which was not a whole record` }, by: writer.command };
      content += `${JSON.stringify(record)}\n`;
    }
    const backup = `${path}.before-repair-${stamp(now)}`;
    const setAsideFile = setAside.length > 0 ? `${path}.set-aside-${stamp(now)}.txt` : undefined;
    const tmp = `${path}.${writer.pid}.repair`;
    try {
      copyFileSync(path, backup);
      if (setAsideFile !== undefined) writeFileSync(setAsideFile, setAside.map((s) => `${s.text}\n`).join(''), { mode: 0o600 });
      const fd = openSync(tmp, 'w', 0o600);
      try {
        writeSync(fd, content);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw storeWriteError(path, err);
    }
    return { path, numbers, setAside, national: [], setAsideFile, backup };
  });
}
