// The opt-out store's lines, read in one place (docs/optouts.md: "One store per account"): what is
// a record, and where each is in the file. The store read into memory (store.ts) and its index
// (lookup.ts) both read lines only through `readStoreLines`.
//
// - A line that parses as a change (`add` or `remove` of an E.164 number, with its time) is a record.
// - Any other line (a hand edit, a line cut short by a crash) is passed over and counted.
// - A last line without its newline is not read yet: its writer is still writing it, or was killed
//   before it finished (writers fdatasync a change whole before they answer), and the next writer
//   cuts it off.

/** `opt-out`: the person asked; `undeliverable`: a receipt said the number cannot be reached. */
export type OptOutReason = 'opt-out' | 'undeliverable';

/** What shows the opt-out is real: the reply, the receipt, who typed it in. */
export interface Evidence {
  /** The reply's text (STOP), as it came. */
  readonly text?: string;
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

/** One line of the store. */
export interface OptOutRecord {
  readonly v: number;
  readonly op: 'add' | 'remove';
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

/** A line that is not a record: its number in the file (1-based) and its text. */
export interface BadLine {
  readonly line: number;
  readonly text: string;
}

export interface StoreLines {
  /** The records, in file order, each with its line and the byte in the file where it starts. */
  readonly records: ReadonlyArray<{ readonly line: number; readonly offset: number; readonly record: OptOutRecord }>;
  readonly bad: readonly BadLine[];
  /** Bytes read up to and with the last whole line: where the next read starts. */
  readonly end: number;
  /** Lines ended, so the next read numbers its lines on from there. */
  readonly lines: number;
  /** Always false here: a last line without its newline is not taken. */
  readonly openEnd: boolean;
  /** The last line, not ended yet (bytes from `end` to the end of what was read). */
  readonly torn: number;
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
  if ((o.op !== 'add' && o.op !== 'remove') || typeof o.number !== 'string' || !E164.test(o.number) || typeof o.at !== 'string') return undefined;
  return o as OptOutRecord;
}

/**
 * The lines of `buf`, bytes of a store read from a line start: byte `offset` of the file, its line
 * `firstLine`. The one reading of a store's lines.
 */
export function readStoreLines(buf: Buffer, firstLine = 1, offset = 0): StoreLines {
  const records: Array<{ line: number; offset: number; record: OptOutRecord }> = [];
  const bad: BadLine[] = [];
  const end = buf.lastIndexOf(0x0a) + 1;
  let pos = 0;
  let line = firstLine;
  while (pos < end) {
    const nl = buf.indexOf(0x0a, pos);
    const text = buf.toString('utf8', pos, nl);
    if (text !== '') {
      const record = recordOf(text);
      if (record !== undefined) records.push({ line, offset: offset + pos, record });
      else bad.push({ line, text });
    }
    pos = nl + 1;
    line++;
  }
  return { records, bad, end, lines: line - firstLine, openEnd: false, torn: buf.length - end };
}
