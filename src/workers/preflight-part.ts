// A worker thread of the parallel preflight (bulk/preflight/parallel.ts): one part of the CSV file through
// the same pass as the single-threaded preflight, its spool lines to its own file, its figures
// (and its set of numbers, transferred, not copied) back to the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import type { CountryCode } from 'libphonenumber-js/max';
import { createNumberChecker } from '../bulk/input/number-check.js';
import { NumberSet } from '../bulk/input/number-set.js';
import type { PartJob, PartMessage, PartResult } from '../bulk/preflight/parallel.js';
import { preflightRange } from '../bulk/preflight/range.js';
import { SpoolWriter } from '../bulk/preflight/spool.js';

async function main(job: PartJob): Promise<void> {
  const spool = job.spoolPath !== undefined ? new SpoolWriter(job.spoolPath) : undefined;
  let result: PartResult;
  try {
    const r = await preflightRange({
      path: job.path,
      fileLabel: job.fileLabel,
      format: job.format,
      columns: job.columns,
      checker: createNumberChecker(job.country as CountryCode | undefined, { allowUnlisted: job.allowUnlisted === true }),
      repeats: job.repeats,
      fixMojibake: job.fixMojibake === true,
      exclude: job.exclude !== undefined ? NumberSet.from(job.exclude) : undefined,
      sent: job.sent !== undefined ? NumberSet.from(job.sent) : undefined,
      resent: job.resent !== undefined ? NumberSet.from(job.resent) : undefined,
      batchSize: job.batchSize,
      setCapacity: job.setCapacity,
      spool,
      maxProblems: job.maxProblems,
      start: job.start,
      end: job.end,
      recordDelimiter: job.recordDelimiter,
      hash: job.hash,
      firstNumbers: job.firstNumbers,
      message: job.message,
      keepFirst: job.keepFirst,
    });
    const { seen, several, ...rest } = r;
    result = { ...rest, seen: job.keepSeen ? seen.export() : undefined, several: several.export() };
  } finally {
    spool?.close();
  }
  const message: PartMessage = { ok: true, result };
  // The sets' buffers are transferred, not copied.
  const buffers = [result.seen, result.several].flatMap((s) => (s === undefined ? [] : [s.slots.buffer as ArrayBuffer, ...(s.values !== undefined ? [s.values.buffer as ArrayBuffer] : [])]));
  parentPort?.postMessage(message, buffers);
}

main(workerData as PartJob).catch((err: unknown) => {
  const message: PartMessage = { ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  parentPort?.postMessage(message);
});
