// A failed outcome as the error its exit code belongs to, with the status and the server's parsed
// body for --json. Shared by every command that calls the API (send, api), so they name, hint
// and exit the same way.
import { AuthError, NotSentError, OutcomeUnknownError, RejectedError, UsageError, errorDocument, type ExitCode, type MsgrError, type MsgrErrorOptions } from '../errors.js';
import { redact, redactJson, showControls } from '../output/sanitize.js';
import { isWrongAddress, REDIRECT_HINT, wrongAddressHint, type Outcome, type WrongAddress } from './outcome.js';

export interface OutcomeErrorOptions {
  readonly apiKey: string;
  /** Server text shown on a terminal is stripped of control characters. */
  readonly tty: boolean;
  /** What to do about a rejected request (any other 4xx). */
  readonly rejectedHint?: string;
  /** The request's address, for the hint of a 404 or 405 (the URL msgr built, and how). */
  readonly address?: Omit<WrongAddress, 'status'>;
  /** What to check after an outcome-unknown failure. */
  readonly unknownHint?: string;
  /** What to do after a not-sent failure, unless the failure knows better. */
  readonly notSentHint?: string;
  /** Which request failed, before the message (`the sample of line 2: `). */
  readonly prefix?: string;
  /**
   * Facts beside `error` in the --json document (what a run did before it failed); such a document
   * has `exitCode` at its top level too, as a bulk run's summary has.
   */
  readonly facts?: Readonly<Record<string, unknown>>;
}

export function outcomeError(outcome: Exclude<Outcome, { kind: 'accepted' }>, o: OutcomeErrorOptions): MsgrError {
  const clean = (s: string): string => redact(o.tty ? showControls(s) : s, o.apiKey);
  // Whatever the server sends back, the key never reaches stdout.
  const body = redactJson(outcome.body, o.apiKey);
  const prefix = o.prefix ?? '';
  const facts = o.facts;
  const error = <E extends MsgrError>(Kind: new (message: string, options?: MsgrErrorOptions) => E, message: string, hint: string): E => {
    const text = prefix + message;
    const jsonFor = facts === undefined ? undefined : (exitCode: ExitCode): unknown => ({ ...errorDocument(text, hint, exitCode, { status: outcome.status, body }), ...facts, exitCode });
    return new Kind(text, { hint, status: outcome.status, body, ...(jsonFor !== undefined ? { jsonFor } : {}) });
  };
  switch (outcome.kind) {
    case 'auth':
      return error(AuthError, `the API refused the key or the account (HTTP ${outcome.status}): ${clean(outcome.message)}`, 'Check the API key and --account (msgr profile show tells where each came from).');
    case 'rejected':
      return error(
        RejectedError,
        `the API rejected the request (HTTP ${outcome.status}): ${clean(outcome.message)}`,
        outcome.status < 400 ? `${REDIRECT_HINT} Nothing was sent.`
        : isWrongAddress(outcome.status) && o.address !== undefined ? `${wrongAddressHint({ ...o.address, status: outcome.status })} Nothing was sent.`
        : (o.rejectedHint ?? 'Fix the request and send it again.'),
      );
    case 'not-sent': {
      const message = `not sent: ${outcome.status !== undefined ? `HTTP ${outcome.status}: ` : ''}${clean(outcome.message)}${outcome.attempts > 1 ? ` (after ${outcome.attempts} attempts)` : ''}`;
      const hint = outcome.hint ?? o.notSentHint ?? 'Nothing was sent; it is safe to run the same command again.';
      // A setting must change first (a proxy refusing the credentials): fix, then run again.
      return error(outcome.config === true ? UsageError : NotSentError, message, hint);
    }
    case 'unknown':
      return error(OutcomeUnknownError, `outcome unknown: ${outcome.status !== undefined ? `HTTP ${outcome.status}: ` : ''}${clean(outcome.message)}`, o.unknownHint ?? 'The request may have been processed. Check whether the message arrived before sending it again.');
  }
}
