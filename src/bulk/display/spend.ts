// What a campaign may spend, as the preflight and the summary say it: --limit (a canary),
// and the --json fields that carry it (docs/cost-and-canary.md).
import { UsageError } from '../../errors.js';
import type { Ui } from '../../output/ui.js';
import { formatCount } from '../../output/count.js';
import { FLAG } from '../flag-names.js';

/** The --json summary's `spend`. */
export interface SpendSummary {
  /** --limit: the rows this command sends at most; null: all of them. */
  limit: number | null;
}

const s = (n: number): string => (n === 1 ? '' : 's');

/**
 * The preflight's line for --limit: what this command sends of the rows to send. `toSend`: the
 * rows this command has left to send (a resume's are fewer than the file's). Requests are never
 * split (a resume sends each under its Idempotency-Key with the same recipients), so with one
 * text for every row it sends whole requests of `batchSize`; with a message per row, requests
 * hold one message's rows and may be smaller.
 */
export function printLimit(ui: Pick<Ui, 'info'>, limit: number | null, toSend: number, batchSize: number, perRow: boolean): void {
  if (limit === null || toSend <= limit) return;
  const sent = perRow ? limit : Math.floor(limit / batchSize) * batchSize;
  const whole = sent !== limit ? ` (${formatCount(sent)}: requests of ${formatCount(batchSize)} are never split)` : perRow ? ' at most (whole requests)' : '';
  ui.info(`  ${FLAG.limit} ${formatCount(limit)}: this command sends the first ${formatCount(limit)} recipient${s(limit)}${whole}, then stops; a resume sends the rest`);
}

/** A limit smaller than a request would send nothing. */
export function limitError(limit: number | null, batchSize: number, resumed: boolean): UsageError | undefined {
  if (limit === null || limit >= batchSize) return undefined;
  return new UsageError(`${FLAG.limit} ${formatCount(limit)} is smaller than one request of ${formatCount(batchSize)} recipients${resumed ? ' (the run\'s batch size)' : ''}: nothing would be sent`, {
    hint: resumed ? `Give ${FLAG.limit} ${formatCount(batchSize)} or more: a resumed run keeps its requests as they were.` : `Give ${FLAG.limit} ${formatCount(batchSize)}, or ${FLAG.batchSize} ${formatCount(limit)} with it.`,
  });
}

/**
 * After a run that stopped at its --limit: how many are left and the command that sends them.
 * `left`: recipients not sent.
 */
export function printLimitStop(ui: Pick<Ui, 'info'>, limit: number, left: number, resume: string | null): void {
  ui.info(`  stopped at ${FLAG.limit} ${formatCount(limit)}: ${formatCount(left)} recipient${s(left)} left to send${resume !== null ? `; send them with: ${resume}` : ''}`);
}
