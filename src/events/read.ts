// Reading events files back (replay, delivery states, forwarding): one record a line; a line
// that is not a record (a torn last line, a hand edit) is skipped and counted, never fatal.
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { UsageError, fileHint, fileProblem } from '../errors.js';
import { asRecord, type EventRecord } from './saved-event.js';

export interface ReadResult {
  readonly records: number;
  readonly skipped: number;
}

/** Calls `onRecord` for every record of the file, in order. A missing file is a UsageError naming `flag`. */
export async function readEventsFile(path: string, onRecord: (r: EventRecord) => void | Promise<void>, flag = '--out'): Promise<ReadResult> {
  let records = 0;
  let skipped = 0;
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1024 * 1024 });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch (err) {
    throw new UsageError(`${flag}: cannot read the events file ${path} (${fileProblem(err)})`, { hint: fileHint(err) ?? 'Give the events file that msgr listen writes (--out), or run msgr listen first.' });
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    let record: EventRecord | undefined;
    try {
      record = asRecord(JSON.parse(line));
    } catch {
      record = undefined;
    }
    if (record === undefined) {
      skipped++;
      continue;
    }
    records++;
    await onRecord(record);
  }
  return { records, skipped };
}

/**
 * Whole lines appended after `offset` (up to `limit` bytes of them), and the offset after the last
 * one: what a forwarder that follows the file reads next. A last line without its newline is
 * still being written and is left for the next read.
 */
export async function readLinesFrom(fh: FileHandle, offset: number, limit = 1024 * 1024): Promise<{ lines: Array<{ text: string; end: number }>; next: number; size: number }> {
  const size = (await fh.stat()).size;
  if (offset >= size) return { lines: [], next: offset, size };
  const buf = Buffer.alloc(Math.min(limit, size - offset));
  const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
  const lastNl = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
  if (lastNl === -1) {
    // One line longer than `limit`: read it whole.
    if (bytesRead < size - offset) return readLinesFrom(fh, offset, limit * 4);
    return { lines: [], next: offset, size };
  }
  const lines: Array<{ text: string; end: number }> = [];
  let start = 0;
  while (start <= lastNl) {
    const nl = buf.indexOf(0x0a, start);
    lines.push({ text: buf.toString('utf8', start, nl), end: offset + nl + 1 });
    start = nl + 1;
  }
  return { lines, next: offset + lastNl + 1, size };
}
