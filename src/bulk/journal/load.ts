// Reading a run journal (src/bulk/journal/writer.ts says what each record means): every batch's latest
// state, for --resume, --skip-sent and `msgr runs`.
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { bootId } from './writer.js';
import { BatchState, isAnswered, isInDoubt, JOURNAL_VERSION, OUTCOME_STATE, type BatchOutcome, type DoneRecord, type RunHeader, type SendRecord } from './records.js';

export interface LoadedJournal {
  readonly header: RunHeader;
  /** Per batch, the latest state. */
  readonly states: Uint8Array;
  /** Per batch, the recipients of its latest "send" record (0: never sent). */
  readonly recipients: Uint32Array;
  /** Per batch, its recipients left out since the run started (on the --exclude list or opted out since: bulk/send-pass/opt-outs.ts). */
  readonly excluded: Uint32Array;
  /** Per batch, of those, the ones that went into the opt-out store. */
  readonly optedOut: Uint32Array;
  /** How the last process that wrote the journal ended (its "stop"); undefined when it wrote none. */
  readonly lastStop: string | undefined;
  /** Lines that could not be read (a torn last write). */
  readonly badLines: number;
  /** Bytes read: the whole file, or `maxBytes`. */
  readonly bytes: number;
  /** When the API's last final answer (accepted or rejected) was recorded; undefined: none yet. */
  readonly lastAnswerAt: string | undefined;
}

export interface LoadOptions {
  /** Read only this many bytes (a journal as it was then: see SkipSentSource). */
  readonly maxBytes?: number;
  /** Every "send" record, in file order. */
  readonly onSend?: (rec: SendRecord) => void;
  /** Every "done" record, in file order. */
  readonly onDone?: (rec: DoneRecord) => void;
}

export class JournalError extends Error {
  override readonly name = 'JournalError';
}

export async function loadJournal(path: string, options: LoadOptions = {}): Promise<LoadedJournal> {
  const size = statSync(path).size;
  const bytes = options.maxBytes !== undefined ? Math.min(options.maxBytes, size) : size;
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8', end: Math.max(0, bytes - 1) }), crlfDelay: Infinity });
  let header: RunHeader | undefined;
  let states = new Uint8Array(0);
  let recipients = new Uint32Array(0);
  let excluded = new Uint32Array(0);
  let optedOut = new Uint32Array(0);
  let lastStop: string | undefined;
  let badLines = 0;
  let lastAnswerAt: string | undefined;
  // Per batch: 1, its request left ("out"); 2, its latest "send" was written since this boot;
  // 4, an earlier attempt may have reached the API and got no answer (in doubt), so a resend
  // (--resend-in-doubt) that never left does not make the batch "never sent".
  let marks = new Uint8Array(0);
  let sameBoot = false;
  const now = bootId();
  for await (const line of rl) {
    if (line.trim() === '') continue;
    let rec: { type?: unknown; batch?: unknown; outcome?: unknown; reason?: unknown };
    try {
      rec = JSON.parse(line) as typeof rec;
    } catch {
      badLines++;
      continue;
    }
    if (header === undefined) {
      if (rec.type !== 'run') throw new JournalError(`${path} is not a msgr journal (its first line is not a run header)`);
      header = rec as unknown as RunHeader;
      if (header.version !== JOURNAL_VERSION) throw new JournalError(`${path} is a version ${String(header.version)} journal; this msgr reads version ${JOURNAL_VERSION}`);
      states = new Uint8Array(header.totals.requests);
      recipients = new Uint32Array(header.totals.requests);
      excluded = new Uint32Array(header.totals.requests);
      optedOut = new Uint32Array(header.totals.requests);
      marks = new Uint8Array(header.totals.requests);
      continue;
    }
    const batch = typeof rec.batch === 'number' ? rec.batch : -1;
    if (rec.type === 'send' && batch >= 0 && batch < states.length) {
      // Sent after a "stop" (where no boot id is known): by a later process, which has not said how it ended.
      lastStop = undefined;
      // A "send" after a final outcome (resend of an in-doubt batch) makes it in flight again.
      const m = marks[batch] as number;
      const doubt = (m & 4) !== 0 || states[batch] === BatchState.inDoubt || (states[batch] === BatchState.started && (m & 3) !== 2);
      states[batch] = BatchState.started;
      marks[batch] = (doubt ? 4 : 0) | (sameBoot ? 2 : 0);
      const count = (rec as { count?: unknown }).count;
      if (typeof count === 'number') recipients[batch] = count;
      const { excluded: left, optedOut: out } = rec as { excluded?: unknown; optedOut?: unknown };
      excluded[batch] = typeof left === 'number' ? left : 0;
      optedOut[batch] = typeof out === 'number' ? out : 0;
      options.onSend?.(rec as unknown as SendRecord);
    } else if (rec.type === 'out' && batch >= 0 && batch < states.length) {
      marks[batch] = (marks[batch] as number) | 1;
    } else if (rec.type === 'wait' && batch >= 0 && batch < states.length) {
      // Its last attempt did not take: until the next "out", nothing of it is out there.
      marks[batch] = (marks[batch] as number) & ~1;
    } else if (rec.type === 'boot') {
      // A process opened the journal again: how it ended is not known until its own "stop".
      lastStop = undefined;
      sameBoot = now !== undefined && (rec as { id?: unknown }).id === now;
    } else if (rec.type === 'done' && batch >= 0 && batch < states.length) {
      let s = OUTCOME_STATE[rec.outcome as BatchOutcome];
      // A resend closed before it left (Ctrl-C, a full disk): the earlier attempt is still in doubt.
      if (s === BatchState.notSent && ((marks[batch] as number) & 4) !== 0) s = BatchState.inDoubt;
      if (s !== undefined) states[batch] = s;
      if (s === BatchState.excluded) {
        const { excluded: left, optedOut: out } = rec as { excluded?: unknown; optedOut?: unknown };
        excluded[batch] = typeof left === 'number' ? left : 0;
        optedOut[batch] = typeof out === 'number' ? out : 0;
      }
      // The API answered for the key: what came before is settled by it.
      if (isAnswered(s)) {
        marks[batch] = (marks[batch] as number) & ~4;
        const at = (rec as { at?: unknown }).at;
        if (typeof at === 'string') lastAnswerAt = at;
      }
      options.onDone?.(rec as unknown as DoneRecord);
    } else if (rec.type === 'stop') {
      lastStop = typeof rec.reason === 'string' ? rec.reason : undefined;
    }
  }
  // Lines that are not JSON are skipped above (a line torn by a crash): a file of only those is no journal, not an empty one.
  if (header === undefined) throw new JournalError(badLines > 0 ? `${path} is not a msgr journal (none of its lines is a run header)` : `${path} is empty`);
  for (let b = 0; b < states.length; b++) if (states[b] === BatchState.started && marks[b] === 2) states[b] = BatchState.notSent;
  return { header, states, recipients, excluded, optedOut, lastStop, badLines, bytes, lastAnswerAt };
}

/** Recipients by what the API said of their batches: accepted, rejected, or in doubt (isInDoubt). */
export interface OutcomeTotals {
  readonly accepted: number;
  readonly rejected: number;
  readonly inDoubt: number;
  /** Left out since the run started: on the --exclude list or opted out before their batch was sent. */
  readonly excluded: number;
}

export function outcomeTotals(j: Pick<LoadedJournal, 'states' | 'recipients' | 'excluded'>): OutcomeTotals {
  let accepted = 0;
  let rejected = 0;
  let inDoubt = 0;
  let excluded = 0;
  j.states.forEach((s, b) => {
    const n = j.recipients[b] ?? 0;
    // Those of a batch still to send are left out again by the resume that sends it.
    if (s !== BatchState.none && s !== BatchState.notSent && s !== BatchState.auth) excluded += j.excluded[b] ?? 0;
    if (s === BatchState.accepted) accepted += n;
    else if (s === BatchState.rejected) rejected += n;
    else if (isInDoubt(s)) inDoubt += n;
  });
  return { accepted, rejected, inDoubt, excluded };
}

/** The header line of a journal, without reading the rest; undefined when it is not one. */
export function readHeader(path: string): RunHeader | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const chunks: Buffer[] = [];
    const buf = Buffer.alloc(64 * 1024);
    for (let pos = 0; pos < 16 * 1024 * 1024; ) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      const nl = buf.subarray(0, n).indexOf(0x0a);
      chunks.push(Buffer.from(buf.subarray(0, nl === -1 ? n : nl)));
      if (nl !== -1) break;
      pos += n;
    }
    const rec = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<RunHeader>;
    return rec.type === 'run' && typeof rec.runId === 'string' ? (rec as RunHeader) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
