// The refusal of a new run beside the file's unfinished run, and what the --restart it offers
// does as the command stands (docs/campaigns.md: "Running a file again"; bulk/runs/open.ts).
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { RunHeader } from '../journal/records.js';
import { FLAG } from '../flag-names.js';
import { resumeBlocked } from './resume-checks.js';

/** A new run of a file beside its unfinished run (docs/files.md: "Nothing lost, nothing sent twice"). */
export function unfinishedError(ctx: Context, header: RunHeader, fileAbs: string | undefined, journalPath: string, again: boolean): UsageError {
  const blocked = resumeBlocked(ctx, header, fileAbs);
  return new UsageError(`an unfinished run of this file exists (run ${header.runId}, started ${header.createdAt})`, {
    hint:
      blocked !== undefined
        ? `It cannot be continued (${blocked}): abandon it with ${FLAG.restart}${restartDoes(again)}. Journal: ${journalPath}`
        : `Continue it with ${FLAG.resume} (rows already accepted are not sent again), or abandon it with ${FLAG.restart}${restartDoes(again)}. Journal: ${journalPath}`,
  });
}

/**
 * What the offered --restart does with the rows the abandoned run accepted, as this command says
 * (docs/campaigns.md: "Running a file again"): --again messages them again; without it, they are
 * left out for the same message, and adding --again sends to them again.
 */
export function restartDoes(again: boolean): string {
  return again
    ? ` (with ${FLAG.again}, it messages every row, those that run accepted too)`
    : ` (for the same message, it leaves out the rows that run accepted; with ${FLAG.again} too, it messages them again)`;
}
