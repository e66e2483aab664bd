// `msgr optout repair` (docs/optouts.md: "Damage and repair"): a store with lines that are not
// records (records.ts) stops every send until a person repairs it. Repair is one step: a line that
// reads as a phone number (typed in by hand, with or without a `#` comment) becomes an opt-out of
// that number, since that is what someone meant by writing it there; any other line is set aside
// in a file beside the store, never dropped; the file as it was is kept beside it too. Records are
// kept byte for byte, in their order; the repaired store is written aside and renamed into place
// under the store's lock, so no reader sees half of it (readers notice the new file: store.ts).
import { closeSync, copyFileSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import type { CountryCode } from 'libphonenumber-js/max';
import { normaliseNumber, OPT_OUT_NUMBERS } from '../message/numbers.js';
import { readStoreLines, STORE_VERSION, type OptOutRecord } from './records.js';
import { storeWriteError, withStoreLock, type StoreWriter } from './store.js';

export interface RepairResult {
  readonly path: string;
  /** Numbers read on lines that were not records: opted out now (`already`: they were). */
  readonly numbers: ReadonlyArray<{ readonly line: number; readonly number: string; readonly already: boolean }>;
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
    const numbers: Array<{ line: number; number: string; already: boolean }> = [];
    const setAside: Array<{ line: number; text: string; why: string }> = [];
    const national: Array<{ line: number; text: string }> = [];
    for (const b of read.bad) {
      const value = b.text.replace(/#.*$/, '').trim().replace(/[,;]+$/, '');
      const r = value === '' ? undefined : normaliseNumber(value, country, OPT_OUT_NUMBERS);
      if (r?.ok === true) {
        numbers.push({ line: b.line, number: r.e164, already: out.get(r.e164) === true || numbers.some((n) => n.number === r.e164) });
      } else {
        if (r?.cause === 'national') national.push({ line: b.line, text: b.text });
        setAside.push({ line: b.line, text: b.text, why: r === undefined ? 'no number on it' : r.reason });
      }
    }
    if (national.length > 0) return { path, numbers: [], setAside: [], national, setAsideFile: undefined, backup: undefined };
    if (tornText !== undefined) setAside.push({ line: read.lines + 1, text: tornText, why: 'a write cut short' });
    const now = writer.now();
    const at = now.toISOString();
    const lines = read.records.map(({ line }) => line);
    const text = buf.toString('utf8').split('\n');
    let content = lines.map((l) => `${(text[l - 1] ?? '').replace(/\r$/, '')}\n`).join('');
    for (const n of numbers) {
      if (n.already) continue;
      const record: OptOutRecord = { v: STORE_VERSION, op: 'add', number: n.number, at, reason: 'opt-out', source: 'manual', evidence: { note: `typed into the store by hand (line ${n.line})` }, by: writer.command };
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
