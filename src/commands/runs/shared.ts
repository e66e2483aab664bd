// What the subcommands of `msgr runs` share when they run: the output flags, where the receipts
// are, and how a run's sending process and its receipts are told (src/bulk/runs-door.ts, the engine's
// front door for runs, is the only module of src/bulk/ these import).
import type { FieldPaths } from '../../events/fields.js';
import { heartbeatStopped, type LockOwner } from '../../files/lock.js';
import type { RunDelivery } from '../../bulk/runs-door.js';
import { formatCount } from '../../output/count.js';
import { bool, list, type Raw } from '../shared/option-values.js';
import { fieldPaths } from '../shared/field-paths.js';

export interface OutputOptions {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}

export function parseOutputOptions(r: Raw): OutputOptions {
  return { json: bool(r, 'json') ?? false, quiet: bool(r, 'quiet') ?? false, verbose: bool(r, 'verbose') ?? false };
}

/** show, report: where the receipts are (addReceiptOptions). */
export interface ReceiptOptions {
  /** Events files saved elsewhere (default: the listener's for the run's account). */
  readonly events?: readonly string[] | undefined;
  /** Where a receipt's fields are, when the usual names miss them. */
  readonly fields: FieldPaths;
}

export function parseReceiptOptions(r: Raw): ReceiptOptions {
  return { events: list(r, 'events'), fields: fieldPaths(r) };
}

/** `stopped`: its process is alive but its heartbeat stopped (suspended with Ctrl-Z): nothing is being sent. */
export const sendingJson = (o: LockOwner | undefined): { pid: number; host: string; since: string; stopped: boolean } | null => (o === undefined ? null : { pid: o.pid, host: o.host, since: o.startedAt, stopped: heartbeatStopped(o) });

/** What the receipts say of a run's messages, as --json gives it. */
export function deliveryJson(d: RunDelivery): Record<string, unknown> {
  return { ...d.counts, events: d.files, missing: d.missing, records: d.records, skipped: d.skipped };
}

/**
 * `1,200 delivered, 3 failed, 40 pending, 0 unknown (receipts: …)`: delivered, failed and unknown
 * always, the others when there are any; or where the receipts would be, when there are none.
 */
export function describeDelivery(d: RunDelivery): string {
  const c = d.counts;
  if (d.files.length === 0) return `no receipts read: no events file yet (msgr listen for the run's account saves them in ${d.missing[0] ?? 'the state folder'}; --events FILE reads one saved elsewhere)`;
  const parts = [
    `${formatCount(c.delivered)} delivered`,
    `${formatCount(c.failed)} failed`,
    c.expired > 0 ? `${formatCount(c.expired)} expired` : '',
    c.pending > 0 ? `${formatCount(c.pending)} pending (no final receipt yet)` : '',
    `${formatCount(c.unknown)} unknown (no final receipt in 72 h)`,
    c.withoutId > 0 ? `${formatCount(c.withoutId)} accepted without a message id (not matched)` : '',
  ].filter((p) => p !== '');
  return `${parts.join(', ')}; receipts from ${d.files.join(', ')}`;
}
