// src/csv/: reading CSV files, for a campaign (src/bulk/) and an opt-out list (src/optouts/)
// alike. reader.ts (this file) reads one; header.ts says what its header names. It imports
// nothing of either.
//
// Streams a CSV file row by row with csv-parse, in constant memory (docs/campaign-input.md: "Input"): UTF-8 with
// or without BOM, UTF-16 with BOM (LE, and BE transcoded here, which csv-parse cannot read),
// --encoding latin1, CRLF/LF/CR, quotes, and `,` `;` or tab detected from the header line (or
// named by an Excel `sep=;` first line).
// Values are never cast (docs/dependencies.md: "csv-parse"; `0044123` became 44123).
//
// csv-parse's push-style core (`Parser#api.parse`) is driven directly: each record reaches the
// callback synchronously while `info` still describes it, so line numbers and byte offsets cost
// no object per row, and the caller decides when to read the next chunk (back-pressure).
import { isUtf8 } from 'node:buffer';
import type { Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { CsvError, Parser } from 'csv-parse';
import { detectBom, windows1252, type FileEncoding } from '../message/text-file.js';

export interface CsvFormat {
  readonly encoding: FileEncoding;
  /**
   * Where the first record (the header) starts: after a byte-order mark, and after an Excel
   * `sep=;` line, which names the delimiter and is not a record.
   */
  readonly firstByte: number;
  /** The line the first record starts on: 2 after a `sep=` line. */
  readonly firstLine: number;
  readonly delimiter: string;
  /** Whether the delimiter was detected (or named by a `sep=` line) rather than given. */
  readonly detected: boolean;
  /** Lines end in CR alone (in the first 64 KiB): Excel for Mac's "CSV (Macintosh)". */
  readonly crLineEnds?: boolean;
  /** Average bytes a line in the first 64 KiB (0 when it has none): sizes the duplicate set. */
  readonly lineBytes: number;
  /**
   * The first record is data, not a header (--no-header): the header is then the column
   * positions, `1`, `2`, … as many as the first record has fields.
   */
  readonly noHeader?: boolean;
  /**
   * With `--encoding latin1`: the file's first 64 KiB are valid UTF-8 with letters beyond ASCII,
   * the first of them on `line`. Read as Windows-1252 they would be sent garbled ("José" as
   * "JosÃ©"); a real Windows-1252 text with accented letters is practically never valid UTF-8.
   */
  readonly utf8Text?: { readonly line: number; readonly text: string } | undefined;
}

/**
 * A record of empty or whitespace-only fields: what a spreadsheet writes for an empty row
 * (`;;`). Skipped like an empty line, by every reader of the file (csv-parse's, the simple
 * splitter, each part of a split preflight), so they agree on every record.
 */
export function isBlankRecord(fields: readonly string[]): boolean {
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as string;
    if (f === '') continue;
    // Most fields start with a visible ASCII character: no trim() needed to know.
    const c = f.charCodeAt(0);
    if ((c > 0x20 && c < 0x7f) || f.trim() !== '') return false;
  }
  return true;
}

/** The header of a file read with --no-header: the column positions, from 1. */
export function positionalHeader(width: number): string[] {
  return Array.from({ length: width }, (_, i) => String(i + 1));
}

/** An input problem that stops the run: the message names the line. */
export class CsvInputError extends Error {
  readonly line: number | undefined;
  constructor(message: string, line: number | undefined) {
    super(message);
    this.name = 'CsvInputError';
    this.line = line;
  }
}

const SAMPLE_BYTES = 64 * 1024;
/** A record longer than this is an unclosed quote swallowing the file, not a recipient. */
export const MAX_RECORD_CHARS = 1024 * 1024;
const CHUNK_BYTES = 128 * 1024;

/** Line ends in a piece of a file: its LFs, or its CRs when it has none (CR-only line ends). */
export function countLineEnds(sample: Uint8Array): number {
  let ends = 0;
  for (let i = sample.indexOf(0x0a); i !== -1; i = sample.indexOf(0x0a, i + 1)) ends++;
  if (ends === 0) for (let i = sample.indexOf(0x0d); i !== -1; i = sample.indexOf(0x0d, i + 1)) ends++;
  return ends;
}

/**
 * A file that is no CSV file msgr can read: `why` completes "FILE …" (the caller names the file
 * and adds "; nothing was sent"), `hint` says what to do.
 */
export class NotCsvError extends Error {
  readonly hint: string;
  constructor(why: string, hint: string) {
    super(why);
    this.name = 'NotCsvError';
    this.hint = hint;
  }
}

/**
 * A pipe (`<(command)`, a named pipe) gives its bytes once, and an input is read more than once:
 * its start for the format, then its rows (a run's CSV is also hashed first). Known from the
 * file's status, before anything is opened: opening a named pipe with no writer would wait.
 * `stdin`: the CSV itself, which can come from stdin as `-` instead.
 */
export function pipeError(st: Pick<Stats, 'isFIFO' | 'isSocket'>, stdin: boolean): NotCsvError | undefined {
  if (!st.isFIFO() && !st.isSocket()) return undefined;
  return new NotCsvError(
    'is a pipe (as `<(command)` gives), which msgr cannot read twice',
    `Save it to a file first and give that file${stdin ? ', or pipe it to stdin and give - as the file: `command | msgr send-bulk - …`' : ''}.`,
  );
}

const SAVE_AS_CSV = 'In Excel: File > Save As > "CSV UTF-8 (Comma delimited)"; in Google Sheets: File > Download > CSV.';

/** A workbook given where a CSV file belongs, known by its first bytes: its kind, or undefined. */
function workbookError(sample: Uint8Array): NotCsvError | undefined {
  const starts = (sig: readonly number[]): boolean => sample.length >= sig.length && sig.every((b, i) => sample[i] === b);
  // .xlsx is a zip archive; .xls (Excel 97-2003) an OLE2 compound file.
  const kind = starts([0x50, 0x4b, 0x03, 0x04]) ? '.xlsx' : starts([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]) ? '.xls' : undefined;
  return kind === undefined ? undefined : new NotCsvError(`is an Excel workbook (${kind}), not a CSV file`, SAVE_AS_CSV);
}

/**
 * Looks at the start of the file: byte-order mark, encoding, an Excel `sep=` line, delimiter of
 * the header line. Throws NotCsvError for a pipe or an Excel workbook.
 */
export async function detectFormat(path: string, given: { encoding?: FileEncoding | undefined; delimiter?: string | undefined; noHeader?: boolean | undefined }): Promise<CsvFormat> {
  const pipe = pipeError(await stat(path), false);
  if (pipe !== undefined) throw pipe;
  const fh = await open(path, 'r');
  let sample: Buffer;
  try {
    const buf = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SAMPLE_BYTES, 0);
    sample = buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  const workbook = workbookError(sample);
  if (workbook !== undefined) throw workbook;
  const bom = detectBom(sample);
  let encoding: FileEncoding = bom?.encoding ?? given.encoding ?? 'utf8';
  const bomBytes = bom?.bytes ?? 0;
  if (bom === undefined && given.encoding === undefined && sample.length >= 4) {
    // UTF-16 without a BOM still shows its zero bytes in ASCII header names.
    if (sample[0] !== 0 && sample[1] === 0 && sample[2] !== 0 && sample[3] === 0) encoding = 'utf16le';
    else if (sample[0] === 0 && sample[1] !== 0 && sample[2] === 0 && sample[3] !== 0) encoding = 'utf16be';
  }
  const utf8Text = encoding === 'latin1' && given.encoding === 'latin1' ? disguisedUtf8(sample) : undefined;
  const newlines = countLineEnds(sample);
  const lineBytes = newlines > 0 ? sample.length / newlines : 0;
  const noHeader = { ...(given.noHeader === true ? { noHeader: true } : {}), ...(sample.indexOf(0x0a) === -1 && sample.indexOf(0x0d) !== -1 ? { crLineEnds: true } : {}) };
  const text = decode(sample.subarray(bomBytes), encoding);
  const sep = excelSepLine(text);
  const firstByte = bomBytes + (sep === undefined ? 0 : encoding === 'utf16le' || encoding === 'utf16be' ? sep.line.length * 2 : Buffer.byteLength(sep.line, encoding === 'latin1' ? 'latin1' : 'utf8'));
  const start = { firstByte, firstLine: sep === undefined ? 1 : 2 };
  const utf8 = utf8Text !== undefined ? { utf8Text } : {};
  if (given.delimiter !== undefined) return { encoding, ...start, delimiter: given.delimiter, detected: false, lineBytes, ...noHeader, ...utf8 };
  // Excel's "Unicode text" is UTF-16 and always tab-separated; its names may hold commas.
  const delimiter = sep?.delimiter ?? sniffDelimiter(text.slice(sep?.line.length ?? 0), encoding === 'utf16le' || encoding === 'utf16be');
  return { encoding, ...start, delimiter, detected: true, lineBytes, ...noHeader, ...utf8 };
}

/** CsvFormat.utf8Text: the first non-ASCII letter of a sample that is valid UTF-8, and its line. */
function disguisedUtf8(sample: Buffer): { line: number; text: string } | undefined {
  const first = sample.findIndex((b) => b >= 0x80);
  if (first === -1) return undefined;
  // Up to the last line end, so a letter cut at the sample's end does not make it invalid.
  const end = Math.max(sample.lastIndexOf(0x0a), sample.lastIndexOf(0x0d)) + 1;
  const whole = end > first ? sample.subarray(0, end) : sample;
  if (!isUtf8(whole)) return undefined;
  const before = sample.subarray(0, first);
  const line = 1 + countLineEnds(before);
  // The word around it, for the error: up to spaces, quotes and the usual delimiters.
  const word = /[^\s,;|"]*$/.exec(before.toString('latin1'))?.[0] ?? '';
  const rest = whole.subarray(first).toString('utf8');
  return { line, text: `${word}${/^[^\s,;|"]*/.exec(rest)?.[0] ?? ''}`.slice(0, 40) };
}

/**
 * A first line `sep=;` (or `"sep=;"`), which Excel reads as the file's delimiter and some tools
 * write for it: the line with its line end, and the delimiter it names. A spreadsheet that read
 * the line as a row and saved the sheet again writes the row's empty cells after it (`sep=;;;`).
 */
export function excelSepLine(text: string): { readonly line: string; readonly delimiter: string } | undefined {
  // `$`: a file of nothing but that line is then empty, not one with a header named "sep=".
  const m = /^"?sep=([^\r\n"])"?\1*[ \t]*(?:\r\n|\n|\r|$)/i.exec(text);
  if (m === null) return undefined;
  const delimiter = parseDelimiter(m[1] as string);
  return delimiter === undefined ? undefined : { line: m[0], delimiter };
}

function decode(buf: Buffer, encoding: FileEncoding): string {
  if (encoding === 'utf16be') return swap16(buf.subarray(0, buf.length - (buf.length % 2))).toString('utf16le');
  return buf.toString(encoding);
}

function swap16(buf: Buffer): Buffer {
  const out = Buffer.from(buf);
  return out.swap16();
}

/**
 * The candidate found most often outside quotes in the header line; `,` when none is. `tabFirst`:
 * a tab there wins whatever the counts (a UTF-16 file, which Excel writes tab-separated).
 */
export function sniffDelimiter(text: string, tabFirst = false): string {
  const counts = new Map<string, number>([
    [',', 0],
    [';', 0],
    ['\t', 0],
  ]);
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && counts.has(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  if (tabFirst && (counts.get('\t') ?? 0) > 0) return '\t';
  let best = ',';
  let bestCount = 0;
  for (const [d, n] of counts) {
    if (n > bestCount) {
      best = d;
      bestCount = n;
    }
  }
  return best;
}

export interface ReadOptions {
  readonly format: CsvFormat;
  /** Start at this byte offset, the start of a record, with the header already known. */
  readonly start?: { readonly offset: number; readonly line: number; readonly record: number; readonly header: readonly string[] };
  /** The header row (not called when `start` gives it). */
  readonly onHeader?: (fields: string[]) => void;
  /**
   * One data record: its fields (never cast), its 0-based index among data records, the line
   * it starts on (1-based: the file's own line numbers), and the byte offset just after it.
   */
  readonly onRecord: (fields: string[], index: number, line: number, endOffset: number) => void;
  /** Awaited after each chunk: back-pressure and interruption. */
  readonly afterChunk?: () => Promise<void> | void;
  /** Each raw chunk as read from the file (hashing). */
  readonly onBytes?: (chunk: Buffer) => void;
  /** Stop at this byte offset (exclusive), as if the file ended there: the end of a record. */
  readonly end?: number | undefined;
  /** Stop once the header is read: `bytes` is then where the data starts, `nextLine` its line. */
  readonly stopAfterHeader?: boolean;
}

interface ParserApi {
  parse(buf: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
  info: { lines: number; bytes: number; empty_lines: number; records: number };
}

export interface ReadResult {
  readonly records: number;
  readonly bytes: number;
  readonly header: readonly string[] | undefined;
  /** The line a record after the part read would start on (what `start.line` would be there). */
  readonly nextLine: number;
  /**
   * With `stopAfterHeader`: the header's line end ('\n', '\r\n', '\r'; undefined when the file
   * ends there), which the fast path takes for the rows' (isSimpleRange checks every one).
   */
  readonly recordDelimiter?: string | undefined;
}

/**
 * Every line end ends a record, whichever the file mixes: a CR LF export with rows appended by a
 * Unix tool (LF), an LF header over CR LF rows, an old Mac's CR. (csv-parse's own discovery keeps
 * the first line end it meets for the whole file: an appended LF row then became a field of the
 * row before it, and the rows after it disappeared into one record.) CR LF is tried first, so it
 * is one line end, not two.
 */
const LINE_ENDS = ['\r\n', '\n', '\r'];

/** Reads the file from the start (or `start`), calling back once per record. */
export async function readCsv(path: string, options: ReadOptions): Promise<ReadResult> {
  const { format } = options;
  const parser = new Parser({
    delimiter: format.delimiter,
    encoding: format.encoding === 'utf16be' ? 'utf16le' : format.encoding,
    bom: false,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_CHARS,
    record_delimiter: LINE_ENDS,
  });
  const api = (parser as unknown as { api: ParserApi }).api;
  const info = api.info;
  const base = options.start?.offset ?? format.firstByte;
  let header: readonly string[] | undefined = options.start?.header;
  let index = options.start?.record ?? 0;
  const firstLine = options.start?.line ?? format.firstLine;
  // Lines from csv-parse's counter; it counts a CRLF inside quotes twice, corrected below.
  let overCount = 0;
  let nextStart = firstLine;
  let lastEmpty = 0;
  // At the end csv-parse counts the nothing after a final line end as one more empty line.
  let lastByte = -1;

  const headerRead = new Error('header read');
  let headerEnd: { bytes: number; nextLine: number } | undefined;
  const cp1252 = format.encoding === 'latin1';
  const push = (record: string[]): void => {
    if (cp1252) for (let i = 0; i < record.length; i++) record[i] = windows1252(record[i] as string);
    const startLine = nextStart + (info.empty_lines - lastEmpty);
    lastEmpty = info.empty_lines;
    let endLine = info.lines - 1 + firstLine - overCount;
    if (endLine > startLine) {
      let crlf = 0;
      for (const f of record) {
        for (let i = f.indexOf('\r\n'); i !== -1; i = f.indexOf('\r\n', i + 2)) crlf++;
      }
      overCount += crlf;
      endLine -= crlf;
    }
    nextStart = endLine + 1;
    if (isBlankRecord(record)) return;
    if (header === undefined) {
      if (format.noHeader === true) {
        const positions = positionalHeader(record.length);
        header = positions;
        options.onHeader?.(positions);
        if (options.stopAfterHeader === true) {
          // The data starts with this record: where it starts (blank lines before it are read
          // again and skipped again).
          headerEnd = { bytes: base, nextLine: firstLine };
          throw headerRead;
        }
      } else {
        header = record;
        options.onHeader?.(record);
        if (options.stopAfterHeader === true) {
          headerEnd = { bytes: base + info.bytes, nextLine: nextStart };
          throw headerRead;
        }
        return;
      }
    }
    options.onRecord(record, index++, startLine, base + info.bytes);
  };

  let fh: FileHandle | undefined;
  try {
    fh = await open(path, 'r');
    // Two buffers, used in turn: csv-parse keeps a slice of the previous chunk (an unfinished
    // record) until the next parse call copies it, so the buffer before that is free again.
    // No allocation per chunk keeps external memory flat (V8 frees it only at a full GC).
    const buffers = [Buffer.allocUnsafeSlow(CHUNK_BYTES), Buffer.allocUnsafeSlow(CHUNK_BYTES)] as const;
    let turn = 0;
    let position = base;
    let carry: Buffer | undefined; // an odd byte of UTF-16BE left for the next chunk
    const end = options.end;
    for (;;) {
      const buf = buffers[turn] as Buffer;
      turn ^= 1;
      const want = end !== undefined ? Math.min(CHUNK_BYTES, end - position) : CHUNK_BYTES;
      if (want <= 0) break;
      const { bytesRead } = await fh.read(buf, 0, want, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let chunk = buf.subarray(0, bytesRead);
      options.onBytes?.(chunk);
      if (format.encoding === 'utf16be') {
        const joined = carry !== undefined ? Buffer.concat([carry, chunk]) : chunk;
        const even = joined.length - (joined.length % 2);
        carry = even < joined.length ? Buffer.from(joined.subarray(even)) : undefined;
        chunk = joined.subarray(0, even).swap16();
      }
      if (chunk.length > 0) lastByte = chunk[chunk.length - 1] as number;
      const err = api.parse(chunk, false, push, () => undefined);
      if (err !== undefined) throw translate(err, nextStart);
      if (options.afterChunk !== undefined) await options.afterChunk();
    }
    const err = api.parse(undefined, true, push, () => undefined);
    if (err !== undefined) throw translate(err, nextStart);
  } catch (err) {
    if (err === headerRead && headerEnd !== undefined) {
      const recordDelimiter = fh !== undefined && format.noHeader !== true ? await lineEndBefore(fh, headerEnd.bytes, format) : undefined;
      await fh?.close();
      fh = undefined;
      return { records: 0, bytes: headerEnd.bytes, header, nextLine: headerEnd.nextLine, recordDelimiter };
    }
    if (err instanceof CsvInputError) throw err;
    if (err instanceof CsvError) throw translate(err, nextStart);
    throw err;
  } finally {
    await fh?.close();
  }
  return { records: index, bytes: base + info.bytes, header, nextLine: nextStart + (info.empty_lines - lastEmpty) - (lastByte === 0x0a || lastByte === 0x0d ? 1 : 0) };
}

/** The line end that ends at `offset`, in a one-byte encoding (the fast path reads no other). */
async function lineEndBefore(fh: FileHandle, offset: number, format: CsvFormat): Promise<string | undefined> {
  if (format.encoding !== 'utf8' && format.encoding !== 'latin1') return undefined;
  const two = Buffer.alloc(2);
  const from = Math.max(0, offset - 2);
  const { bytesRead } = await fh.read(two, 0, offset - from, from);
  const last = bytesRead > 0 ? two[bytesRead - 1] : undefined;
  if (last === 0x0a) return bytesRead === 2 && two[0] === 0x0d ? '\r\n' : '\n';
  return last === 0x0d ? '\r' : undefined;
}

/** Lines longer than this are left to csv-parse (its record limit is 1M characters). */
const SIMPLE_MAX_LINE = 256 * 1024;

export interface SimpleRange {
  readonly format: CsvFormat;
  /** Where the data records start (after the header) and the line they start on. */
  readonly offset: number;
  readonly line: number;
  readonly end?: number | undefined;
  readonly recordDelimiter: string;
  /** Hash every byte from here (≤ offset) to the end of the range, while checking it. */
  readonly hashFrom?: number;
  readonly onBytes?: (chunk: Buffer) => void;
}

/**
 * Whether csv-parse's work on a range can be done by splitting lines and fields: a UTF-8 or
 * Latin-1 range with no quote character at all, LF line ends with no CR anywhere (or CRLF ones
 * with no other CR or LF), no line over 256 KiB, a one-byte delimiter. There every line is a
 * record, an empty line is skipped (and a blank record, as readCsv() skips it), fields are the bytes between delimiters decoded one by one
 * (as csv-parse decodes them), so the records, line numbers and text are csv-parse's.
 * Reads the range once (and hashes it when asked).
 */
export async function isSimpleRange(path: string, r: SimpleRange): Promise<boolean> {
  const { format } = r;
  if (format.encoding !== 'utf8' && format.encoding !== 'latin1') return false;
  if (format.delimiter.length !== 1 || format.delimiter.charCodeAt(0) >= 0x80 || /["\r\n]/.test(format.delimiter)) return false;
  if (r.recordDelimiter !== '\n' && r.recordDelimiter !== '\r\n') return false;
  const crlf = r.recordDelimiter === '\r\n';
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafeSlow(1024 * 1024);
    let simple = true;
    let position = r.hashFrom ?? r.offset;
    let lastNewline = r.offset - 1;
    let prev = -1; // the byte before this chunk
    for (;;) {
      const want = r.end !== undefined ? Math.min(buf.length, r.end - position) : buf.length;
      if (want <= 0) break;
      const { bytesRead } = await fh.read(buf, 0, want, position);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      r.onBytes?.(chunk);
      if (simple) {
        const from = Math.max(0, r.offset - position);
        if (from < bytesRead) {
          if (chunk.indexOf(0x22, from) !== -1) simple = false;
          for (let i = chunk.indexOf(0x0a, from); simple && i !== -1; i = chunk.indexOf(0x0a, i + 1)) {
            if (position + i - lastNewline > SIMPLE_MAX_LINE) simple = false;
            if (crlf && (i > 0 ? chunk[i - 1] : prev) !== 0x0d) simple = false;
            lastNewline = position + i;
          }
          for (let i = chunk.indexOf(0x0d, from); simple && i !== -1; i = chunk.indexOf(0x0d, i + 1)) {
            // A CR only right before an LF, and only in a CRLF file. (A CR that ends the chunk is
            // checked with the next chunk's first byte: the LF loop above sees it then.)
            if (!crlf || (i + 1 < bytesRead && chunk[i + 1] !== 0x0a)) simple = false;
          }
          if (position + bytesRead - 1 - lastNewline > SIMPLE_MAX_LINE) simple = false;
          // A CR that ended the chunk before: this chunk must go on with its LF.
          if (from === 0 && prev === 0x0d && chunk[0] !== 0x0a) simple = false;
          prev = chunk[bytesRead - 1] as number;
        }
      }
      position += bytesRead;
      if (!simple && r.onBytes === undefined) break;
    }
    // A CR as the very last byte has no LF after it.
    if (prev === 0x0d) simple = false;
    return simple;
  } finally {
    await fh.close();
  }
}

/** The data records of a range isSimpleRange() accepted, as readCsv() would give them. */
export async function readSimpleCsv(path: string, r: SimpleRange, onRecord: ReadOptions['onRecord'], afterChunk?: ReadOptions['afterChunk']): Promise<ReadResult> {
  const crlf = r.recordDelimiter === '\r\n';
  const encoding = r.format.encoding === 'latin1' ? 'latin1' : 'utf8';
  const delimiter = r.format.delimiter.charCodeAt(0);
  const buf = Buffer.allocUnsafeSlow(CHUNK_BYTES + SIMPLE_MAX_LINE);
  // Buffer's own decoders, without toString()'s argument handling (a few fields a row).
  const raw = buf as Buffer & { utf8Slice?: (start: number, end: number) => string; latin1Slice?: (start: number, end: number) => string };
  const native = encoding === 'latin1' ? raw.latin1Slice : raw.utf8Slice;
  const decoded = typeof native === 'function' ? (a: number, b: number): string => native.call(buf, a, b) : (a: number, b: number): string => buf.toString(encoding, a, b);
  const slice = encoding === 'latin1' ? (a: number, b: number): string => windows1252(decoded(a, b)) : decoded;
  const fh = await open(path, 'r');
  let have = 0;
  let position = r.offset;
  let line = r.line;
  let index = 0;
  const emit = (start: number, end: number, after: number): void => {
    if (crlf && end > start && buf[end - 1] === 0x0d) end--;
    if (end === start) return; // an empty line: skipped, as csv-parse's skip_empty_lines does
    const fields: string[] = [];
    let from = start;
    for (let d = buf.indexOf(delimiter, from); d !== -1 && d < end; d = buf.indexOf(delimiter, from)) {
      fields.push(slice(from, d));
      from = d + 1;
    }
    fields.push(slice(from, end));
    // Only a line that starts with a delimiter, a space or a non-ASCII byte can be blank.
    const first = buf[start] as number;
    if ((first === delimiter || first <= 0x20 || first >= 0x7f) && isBlankRecord(fields)) return;
    onRecord(fields, index++, line, after);
  };
  try {
    for (;;) {
      const want = r.end !== undefined ? Math.min(CHUNK_BYTES, r.end - position) : CHUNK_BYTES;
      const { bytesRead } = want > 0 ? await fh.read(buf, have, want, position) : { bytesRead: 0 };
      const base = position - have; // file offset of buf[0]
      position += bytesRead;
      have += bytesRead;
      let start = 0;
      for (let nl = buf.indexOf(0x0a, start); nl !== -1 && nl < have; nl = buf.indexOf(0x0a, start)) {
        emit(start, nl, base + nl + 1);
        line++;
        start = nl + 1;
      }
      if (bytesRead === 0) {
        if (start < have) emit(start, have, base + have);
        break;
      }
      buf.copyWithin(0, start, have);
      have -= start;
      if (afterChunk !== undefined) await afterChunk();
    }
  } finally {
    await fh.close();
  }
  return { records: index, bytes: position, header: undefined, nextLine: line };
}

/** csv-parse's errors in words a user can act on, with the line. */
function translate(err: Error, recordLine: number): CsvInputError {
  const code = err instanceof CsvError ? err.code : (err as { code?: string }).code;
  const line = (err as { lines?: number }).lines;
  const at = recordLine;
  switch (code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new CsvInputError(`line ${at}: a quoted field starts here and is never closed`, at);
    case 'INVALID_OPENING_QUOTE':
    case 'CSV_INVALID_OPENING_QUOTE': {
      // `+447911123456, "Smith, John"`: the quote opens the field but for the space before it.
      // csv-parse gives the field read so far as its own buffer type, with a toString().
      const field = (err as { field?: { toString(): string } }).field;
      if (field !== undefined && /^[ \t]+$/.test(field.toString())) {
        return new CsvInputError(`line ${line ?? at}: a space before a quoted field; remove the spaces after the delimiter`, line ?? at);
      }
      return new CsvInputError(`line ${line ?? at}: a quote (") inside a field that is not quoted; quote the whole field and double the quote ("")`, line ?? at);
    }
    case 'CSV_INVALID_CLOSING_QUOTE':
      return new CsvInputError(`line ${line ?? at}: text after a closing quote; inside a quoted field a quote is written twice ("")`, line ?? at);
    case 'CSV_MAX_RECORD_SIZE':
      return new CsvInputError(`line ${at}: a record longer than ${MAX_RECORD_CHARS / 1024 / 1024} MB; probably a quote that is never closed`, at);
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return new CsvInputError(`line ${line ?? at}: text after a closing quote`, line ?? at);
    default: {
      const msg = err.message.replace(/\s+/g, ' ').slice(0, 300);
      return new CsvInputError(`line ${line ?? at}: ${msg}`, line ?? at);
    }
  }
}

/** `--delimiter`'s value: a character, or tab, comma, semicolon, pipe by name; undefined when it cannot be one. */
export function parseDelimiter(input: string): string | undefined {
  const v = input.toLowerCase();
  if (v === 'tab' || v === '\\t' || input === '\t') return '\t';
  if (v === 'comma') return ',';
  if (v === 'semicolon') return ';';
  if (v === 'pipe') return '|';
  if (input.length === 1 && !/[\r\n"a-z0-9]/i.test(input)) return input;
  return undefined;
}
