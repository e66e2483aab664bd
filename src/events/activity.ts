// Whether a bulk run is sending now, for `msgr listen`'s warning when receipts do not come
// (docs/events.md: "On the terminal"): a run is sending while a send-bulk holds its journal's lock
// (docs/bulk.md: "Nothing lost, nothing sent twice"), in the state folder or kept elsewhere.
import { lockHolder, type LockOwner, type LockProcess } from '../files/lock.js';
import { journalPaths } from '../bulk/runs/catalogue.js';
import { readHeader } from '../bulk/journal/load.js';

export interface SendingRun {
  readonly journal: string;
  readonly runId: string | undefined;
  readonly file: string | undefined;
  readonly sandbox: boolean;
  /** The account the run sends from, when its journal says. */
  readonly account: string | null | undefined;
  readonly owner: LockOwner;
}

export function sendingRuns(state: string, proc: LockProcess): SendingRun[] {
  const out: SendingRun[] = [];
  for (const journal of journalPaths(state)) {
    const owner = lockHolder(`${journal}.lock`, proc);
    if (owner === undefined) continue;
    const header = readHeader(journal);
    out.push({
      journal,
      runId: header?.runId,
      file: header === undefined ? undefined : header.input.stdin ? 'stdin' : header.input.path,
      sandbox: header?.target?.sandbox ?? journal.includes('/sandbox/'),
      account: header?.target?.account,
      owner,
    });
  }
  return out;
}
