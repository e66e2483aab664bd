// A run's id and each batch's Idempotency-Key: `msgr-<run id>-<batch>`, the same for every
// attempt and every resume of the batch, so the API can tell a retry from a new request
// (docs/files.md: "Nothing lost, nothing sent twice").
import { randomBytes } from 'node:crypto';

/** `20261121T161500Z-3fa9c2d1`: sortable, readable, unique enough for Idempotency-Keys. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

/** Batch k's Idempotency-Key: `name` is the run id, or a keyed run's name (--once). */
export function idempotencyKey(name: string, batch: number): string {
  return `msgr-${name}-${batch}`;
}
