// A bulk run's report in input order: batches are answered in any order (and with messages per
// row, a batch's rows are spread over the file), but each report line is written only once every
// line before it is (docs/campaign-output.md: "Output").
import type { ReportRow, RowOutcome } from './report-file.js';

/** What the sender needs of the report: one row at a time, in input order. */
export interface SenderReport {
  /** Where it is written (messages about a full disk name its folder). */
  readonly path?: string;
  write(row: ReportRow): void;
}

/** Report rows of one segment of the file: the rows skipped before a batch, then its recipients. */
export interface ReportRows {
  readonly lines: number[];
  readonly numbers: string[];
  /** undefined: a recipient of the batch; else why the row was not sent. */
  readonly skips: Array<RowOutcome | undefined>;
  readonly errors: Array<string | undefined>;
}

/** What the report needs of a batch once it is answered. */
export interface ReportBatch {
  readonly seq: number;
  readonly rows: ReportRows | undefined;
  /** Grouped runs: each recipient's position among all rows. */
  readonly seqs?: number[];
  readonly outcome?: RowOutcome;
  readonly status?: number | undefined;
  readonly error?: string | undefined;
  readonly ids?: Array<string | undefined>;
}

export class ReportOrder {
  readonly #report: SenderReport;
  readonly #completed = new Map<number, ReportBatch>();
  #nextReportSeq = 0;
  /** Grouped runs: report rows by their position in the file, written once all before are. */
  readonly #rowsDone = new Map<number, ReportRow>();
  #nextRow = 0;

  constructor(report: SenderReport) {
    this.#report = report;
  }

  /** One row (of a grouped run) at its position in the file. */
  rowDone(seq: number, row: ReportRow): void {
    this.#rowsDone.set(seq, row);
    for (let next = this.#rowsDone.get(this.#nextRow); next !== undefined; next = this.#rowsDone.get(this.#nextRow)) {
      this.#rowsDone.delete(this.#nextRow);
      this.#nextRow++;
      this.#report.write(next);
    }
  }

  /** A batch answered (or given up): its rows, once the batches before it are written. */
  complete(b: ReportBatch): void {
    if (b.seqs !== undefined) {
      this.#writeRows(b);
      return;
    }
    this.#completed.set(b.seq, b);
    for (let next = this.#completed.get(this.#nextReportSeq); next !== undefined; next = this.#completed.get(this.#nextReportSeq)) {
      this.#completed.delete(this.#nextReportSeq);
      this.#nextReportSeq++;
      this.#writeRows(next);
    }
  }

  #writeRows(b: ReportBatch): void {
    const report = this.#report;
    const rows = b.rows;
    if (rows === undefined) return;
    // A grouped batch's rows are spread over the file: each waits for the rows before it.
    const write = b.seqs !== undefined ? (row: ReportRow, i: number): void => this.rowDone(b.seqs?.[i] as number, row) : (row: ReportRow): void => report.write(row);
    let j = 0;
    for (let i = 0; i < rows.lines.length; i++) {
      const skip = rows.skips[i];
      const line = rows.lines[i] as number;
      const number = rows.numbers[i] as string;
      if (skip === 'already-sent') {
        write(alreadySentRow(line, number, rows.errors[i] ?? ''), i);
        continue;
      }
      if (skip !== undefined) {
        write({ line, number, outcome: skip, error: rows.errors[i] }, i);
        continue;
      }
      const outcome = b.outcome ?? 'not-sent';
      write({
        line,
        number,
        outcome,
        status: b.status,
        messageId: outcome === 'accepted' ? b.ids?.[j] : undefined,
        error: outcome === 'accepted' && b.error === undefined ? undefined : b.error,
      }, i);
      j++;
    }
  }
}

/** A row an earlier run accepted: the spool's payload names that run and the id it got. */
export function alreadySentRow(line: number, number: string, payload: string): ReportRow {
  const by = payload !== '' ? (JSON.parse(payload) as { runId: string; id: string | null }) : undefined;
  return { line, number, outcome: 'already-sent', messageId: by?.id ?? undefined, error: by !== undefined ? `accepted by run ${by.runId}` : undefined };
}
