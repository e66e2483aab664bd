// The sandbox's work on a request body, from bytes to verdict: UTF-8, JSON, the validation rules,
// and for a valid request its 202 body. A pure function of the bytes and the job, so it runs the
// same on the server's thread (small bodies) or in a worker thread (big ones, src/sandbox/pool.ts):
// a batch of 10,000 recipients is mostly JSON parsing, and on the bulk benchmark's two cores the
// server's one thread was the ceiling of any client sending to it.
import { createHash } from 'node:crypto';
import { buildAcceptedBody, type AcceptedSummary } from './response.js';
import { validateMessageRequest, type FieldError, type ValidMessageRequest } from './validate.js';

export interface ExamineJob {
  /** Server clock, for `validity` in the past. */
  readonly nowMs: number;
  /** Batch token and receipt time the 202 body is built with. */
  readonly token: string;
  readonly receivedAt: string;
  /** Hash the body (there is an Idempotency-Key). */
  readonly hash: boolean;
  /** Return the request as one JSON line for the record file. */
  readonly record: boolean;
}

export type Examined =
  | { readonly kind: 'not-utf8' }
  | { readonly kind: 'not-json'; readonly message: string }
  | { readonly kind: 'invalid'; readonly errors: FieldError[]; readonly errorCount: number }
  | {
      readonly kind: 'valid';
      readonly accountReference: string;
      readonly channel: string;
      /** sha256 of the raw body, base64, when asked for. */
      readonly hash: string | undefined;
      readonly token: string;
      readonly receivedAt: string;
      /** The 202 body; encoded already when it comes from a worker thread. */
      readonly body: string | Uint8Array;
      readonly summary: AcceptedSummary;
      readonly record: string | undefined;
    };

export function examineBody(raw: Uint8Array, job: ExamineJob): Examined {
  let text: string;
  let request: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return { kind: 'not-utf8' };
  }
  try {
    request = JSON.parse(text);
  } catch (err) {
    return { kind: 'not-json', message: (err as Error).message };
  }
  const result = validateMessageRequest(request, job.nowMs);
  if (result.errorCount > 0) return { kind: 'invalid', errors: result.errors, errorCount: result.errorCount };
  const valid = request as ValidMessageRequest;
  const accepted = buildAcceptedBody(valid, job.token, job.receivedAt);
  return {
    kind: 'valid',
    accountReference: valid.accountReference,
    channel: valid.channel,
    hash: job.hash ? createHash('sha256').update(raw).digest('base64') : undefined,
    token: job.token,
    receivedAt: job.receivedAt,
    body: accepted.body,
    summary: accepted.summary,
    // The body as received when it is one line already (cheap for 10,000 recipients);
    // re-serialised when pretty-printed, so the file stays one JSON document per line.
    record: job.record ? (/[\r\n]/.test(text) ? JSON.stringify(request) : text.trim()) : undefined,
  };
}
