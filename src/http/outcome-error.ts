// A failed outcome as the error its exit code belongs to, with the status and the server's parsed
// body for --json. Shared by every command that calls the API (send, api), so they name, hint
// and exit the same way.
import { AuthError, NotSentError, OutcomeUnknownError, RejectedError, UsageError, type MsgrError } from '../errors.js';
import { redact, redactJson, stripControl } from '../output/sanitize.js';
import type { Outcome } from './outcome.js';

export interface OutcomeErrorOptions {
  readonly apiKey: string;
  /** Server text shown on a terminal is stripped of control characters. */
  readonly tty: boolean;
  /** What to do about a rejected request (any other 4xx). */
  readonly rejectedHint?: string;
  /** What to check after an outcome-unknown failure. */
  readonly unknownHint?: string;
}

export function outcomeError(outcome: Exclude<Outcome, { kind: 'accepted' }>, o: OutcomeErrorOptions): MsgrError {
  const clean = (s: string): string => redact(o.tty ? stripControl(s) : s, o.apiKey);
  // Whatever the server sends back, the key never reaches stdout.
  const http = { status: outcome.status, body: redactJson(outcome.body, o.apiKey) };
  switch (outcome.kind) {
    case 'auth':
      return new AuthError(`the API refused the key or the account (HTTP ${outcome.status}): ${clean(outcome.message)}`, {
        hint: 'Check the API key and --account (msgr profile show tells where each came from).',
        ...http,
      });
    case 'rejected':
      return new RejectedError(`the API rejected the request (HTTP ${outcome.status}): ${clean(outcome.message)}`, {
        hint: o.rejectedHint ?? 'Fix the request and send it again.',
        ...http,
      });
    case 'not-sent': {
      const message = `not sent: ${outcome.status !== undefined ? `HTTP ${outcome.status}: ` : ''}${clean(outcome.message)}${outcome.attempts > 1 ? ` (after ${outcome.attempts} attempts)` : ''}`;
      const details = { hint: outcome.hint ?? 'Nothing was sent; it is safe to run the same command again.', ...http };
      // A setting must change first (a proxy refusing the credentials): fix, then run again.
      if (outcome.config === true) return new UsageError(message, details);
      return new NotSentError(message, details);
    }
    case 'unknown':
      return new OutcomeUnknownError(`outcome unknown: ${outcome.status !== undefined ? `HTTP ${outcome.status}: ` : ''}${clean(outcome.message)}`, {
        hint: o.unknownHint ?? 'The request may have been processed. Check whether the message arrived before sending it again.',
        ...http,
      });
  }
}
