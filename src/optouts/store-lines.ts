// The opt-out store's lines, read and checked in one place (docs/optouts.md: "One store per
// account"). Every reader of a store goes through `readStoreLines`: what is a record, what is a
// torn write, and what is damage that must stop a send are decided here and nowhere else.
//
// - A line that parses as a record counts, whether or not a newline ends it (a hand edit often
//   drops the last one): a byte that parses is never cut.
// - A last line without its newline that begins as msgr writes a record (`{`) and does not parse is
//   a write cut short by a crash: it was never acknowledged (writers fdatasync before they answer),
//   so readers pass over it and the next writer sets it aside (store.ts).
// - Any other line that is not a record (a number typed in by hand, a line of something else) is
//   damage: the numbers it may hold cannot be known, so every command that applies the store stops
//   (DamagedStoreError), naming the lines, until `msgr optout repair` or a person fixes them.

/** `opt-out`: the person asked; `undeliverable`: a receipt said the number cannot be reached. */
export type OptOutReason = 'opt-out' | 'undeliverable';

/** What shows the opt-out is real: the reply, the receipt, who typed it in. */
export interface Evidence {
  /** The reply's text (STOP), as it came. */
  readonly text?: string;
  /** The stop word of the reply that made it an opt-out (`stop`, `opt out`), as the word lists write it. */
  readonly word?: string;
  /** A possible opt-out: what in the reply reads as one (`remove me`), and why it is not certain. */
  readonly matched?: string;
  readonly why?: string;
  /** The id of the event in the events file (`ev_…`). */
  readonly event?: string;
  readonly messageId?: string;
  /** A receipt's status and error code. */
  readonly status?: string;
  readonly code?: string;
  /** Free text given with --note. */
  readonly note?: string;
  /** The file an import read. */
  readonly file?: string;
}

/**
 * One line of the store. `add` opts a number out, `remove` takes it off; `possible` keeps a reply
 * that may be an opt-out until a person decides: `add` (accepted) or `dismiss`.
 */
export interface OptOutRecord {
  readonly v: number;
  readonly op: 'add' | 'remove' | 'possible' | 'dismiss';
  readonly number: string;
  readonly at: string;
  readonly reason?: OptOutReason;
  /** Where it came from: `reply`, `receipt`, `manual`, `import`, or what --source said. */
  readonly source: string;
  readonly evidence?: Evidence;
  /** The command that wrote it. */
  readonly by?: string;
}

export const STORE_VERSION = 1;
export const E164 = /^\+[1-9]\d{6,14}$/;
const OPS: ReadonlySet<string> = new Set(['add', 'remove', 'possible', 'dismiss']);

/** A line that is not a record: its number in the file (1-based) and its text. */
export interface BadLine {
  readonly line: number;
  readonly text: string;
}

export interface StoreLines {
  /** The records, in file order, each with its line and the byte of the file where it starts. */
  readonly records: ReadonlyArray<{ readonly line: number; readonly offset: number; readonly record: OptOutRecord }>;
  readonly bad: readonly BadLine[];
  /** Bytes read up to and with the last line taken (a record, or damage): where the next read starts. */
  readonly end: number;
  /** Lines ended, so the next read numbers its lines on from there. */
  readonly lines: number;
  /** The last line taken had no newline after it: a writer must start its lines on a new one. */
  readonly openEnd: boolean;
  /** A last line cut short by a crash (see above): bytes from `end` to the end of what was read. */
  readonly torn: number;
}

/**
 * The number a line that is not a record still names as an opt-out: a record cut short (a crash,
 * a hand edit) or one with a field gone wrong that reads `"number":"+…"` and does not say it is a
 * removal, a dismissal or a possible opt-out. Someone meant to record that opt-out, so it counts
 * until a person repairs the line (docs/optouts.md: "Damage and repair").
 */
export function numberNamed(text: string): string | undefined {
  const m = /"number"\s*:\s*"(\+[1-9]\d{6,14})"/.exec(text);
  if (m === null || /"op"\s*:\s*"(remove|dismiss|possible)"/.test(text)) return undefined;
  return m[1];
}

/** The time a line that is not a record gives (`"at":"…"`), when it is one and not in the future; else `now`. */
export function timeNamed(text: string, now: Date): string {
  const given = /"at"\s*:\s*"([^"]+)"/.exec(text)?.[1];
  const t = given !== undefined ? Date.parse(given) : NaN;
  return new Date(Number.isFinite(t) && t <= now.getTime() ? t : now.getTime()).toISOString();
}

/** The record a line holds, or undefined when it holds none. */
export function recordOf(line: string): OptOutRecord | undefined {
  let r: unknown;
  try {
    r = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return undefined;
  const o = r as Partial<OptOutRecord>;
  if (typeof o.v !== 'number' || typeof o.op !== 'string' || !OPS.has(o.op)) return undefined;
  if (typeof o.number !== 'string' || !E164.test(o.number) || typeof o.at !== 'string' || !Number.isFinite(Date.parse(o.at))) return undefined;
  if (typeof o.source !== 'string') return undefined;
  return o as OptOutRecord;
}

/**
 * The lines of `buf`, bytes of a store read from a line start (`firstLine` is that line's number,
 * `offset` the byte of the file `buf` starts at): its records and its damage. The one reading of a
 * store's lines.
 */
export function readStoreLines(buf: Buffer, firstLine = 1, offset = 0): StoreLines {
  const records: Array<{ line: number; offset: number; record: OptOutRecord }> = [];
  const bad: BadLine[] = [];
  let pos = 0;
  let line = firstLine;
  let end = 0;
  let openEnd = false;
  let torn = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    const last = nl === -1;
    const text = buf.toString('utf8', pos, last ? buf.length : nl).replace(/\r$/, '');
    const next = last ? buf.length : nl + 1;
    if (text.trim() === '') {
      // An empty line is nothing; an empty unfinished one waits for its writer.
      if (!last) end = next;
      pos = next;
      if (!last) line++;
      continue;
    }
    const record = recordOf(text);
    if (record !== undefined) {
      records.push({ line, offset: offset + pos, record });
    } else if (last && text.trimStart().startsWith('{')) {
      // A write cut short (or still being written by another process): not a record yet.
      torn = buf.length - pos;
      break;
    } else {
      bad.push({ line, text });
    }
    end = next;
    openEnd = last;
    pos = next;
    line++;
  }
  // An open last line is numbered again by the next read, which starts with its newline.
  return { records, bad, end, lines: line - firstLine - (openEnd ? 1 : 0), openEnd, torn };
}
