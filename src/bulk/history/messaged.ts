// Who the runs in the state folder messaged, and when: every recipient of a batch the API
// accepted, as its journal keeps it (the batch's last "send" record: its numbers, their lines and
// when the request left; the "done" record: their message ids). What `msgr optout violations`
// compares with the opt-out store (docs/optouts.md: "Violations").
import type { RunHeader } from '../journal/records.js';
import { BatchState } from '../journal/records.js';
import { journalPaths, readRunDetail } from './catalogue.js';

/** One recipient an accepted batch of a run messaged. */
export interface Messaged {
  readonly number: string;
  /** When the request left (its "send" record was written just before). */
  readonly at: string;
  readonly line: number | undefined;
  readonly messageId: string | undefined;
  /**
   * When the batch's first request left, under the same Idempotency-Key: earlier than `at` for a
   * batch sent again (--resend-in-doubt), whose accepted answer may be the API's replay of the first.
   */
  readonly firstAt: string;
  readonly idempotencyKey: string | undefined;
}

/** A run, as the recipients it messaged are told with. */
export interface MessagedRun {
  readonly runId: string;
  readonly journal: string;
  readonly header: RunHeader;
}

/**
 * Calls `visit` with every recipient of every accepted batch of the runs in `state` (real runs,
 * or the sandbox's with `sandbox`), run by run, in batch order. A journal that cannot be read is
 * passed over and counted: it is no run to check.
 */
export async function visitMessaged(state: string, sandbox: boolean, visit: (run: MessagedRun, m: Messaged) => void): Promise<{ readonly runs: number; readonly unreadable: number }> {
  let runs = 0;
  let unreadable = 0;
  for (const journal of journalPaths(state)) {
    let detail;
    try {
      detail = await readRunDetail(journal, 'optout violations');
    } catch {
      unreadable++;
      continue;
    }
    const h = detail.loaded.header;
    if ((h.target?.sandbox === true) !== sandbox) continue;
    runs++;
    const run: MessagedRun = { runId: h.runId, journal, header: h };
    const batches = [...detail.sends.keys()].sort((a, b) => a - b);
    for (const b of batches) {
      if (detail.loaded.states[b] !== BatchState.accepted) continue;
      const send = detail.sends.get(b);
      const ids = detail.dones.get(b)?.ids;
      const at = send?.at ?? h.createdAt;
      (send?.numbers ?? []).forEach((number, i) => {
        visit(run, { number, at, line: send?.lines?.[i], messageId: ids?.[i] ?? undefined, firstAt: detail.firstSent.get(b) ?? at, idempotencyKey: send?.key });
      });
    }
  }
  return { runs, unreadable };
}
