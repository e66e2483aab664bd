// A sample to yourself (README: "Personalised messages"): the first rows' messages, each sent to
// the --sample-to numbers instead of the row's recipient, as a run of its own. It has its own run
// id and Idempotency-Keys and never touches the campaign's journal, so the campaign afterwards
// sends to every row as if the sample had not happened.
import { AuthError, ExitCode, NotSentError, OutcomeUnknownError, RejectedError, UsageError, type MsgrError } from '../errors.js';
import type { Context } from '../context.js';
import type { MessagesClient } from '../http/client.js';
import type { Ui } from '../output/ui.js';
import { fmt } from './progress.js';
import type { Outcome } from '../http/outcome.js';
import { asciiJson } from './columns.js';
import type { NumberChecker } from './number-check.js';
import { requestFrame } from './message.js';
import type { FirstRow } from './preflight.js';
import { rowRequest } from './preview.js';
import { shellQuote } from './summary.js';
import { idempotencyKey } from './state.js';

export interface SampleOutcome {
  readonly line: number;
  readonly idempotencyKey: string;
  readonly outcome: Outcome['kind'];
  readonly status: number | null;
  readonly error: string | null;
}

/** The --sample-to numbers, checked (before the file is read) and normalised; undefined without the flag. */
export function sampleNumbers(to: readonly string[] | undefined, checker: NumberChecker): string[] | undefined {
  return to?.map((n) => {
    const r = checker.check(n);
    if (r.verdict === 'invalid') throw new UsageError(`--sample-to: ${r.reason ?? `"${n}" is not a phone number`}`, r.needsCountry === true ? { hint: 'Write it as +<country code><number>, or add --default-country.' } : {});
    return r.e164;
  });
}

/** The body of row `row`'s sample: its request, its recipient entry once per sample number. */
export function sampleBody(message: Record<string, unknown>, row: FirstRow, to: readonly string[]): string {
  const frame = requestFrame(rowRequest(message, row));
  // The row's variables and metaData stay (a template needs them); only the number changes.
  const entry = JSON.parse(row.recipient) as Record<string, unknown>;
  const recipients = to.map((msisdn) => asciiJson(JSON.stringify({ ...entry, msisdn })));
  return `${frame.prefix}${recipients.join(',')}${frame.suffix}`;
}

/** Sends the samples one after the other; stops at the first that is not accepted. */
export async function sendSamples(client: MessagesClient, sampleRunId: string, message: Record<string, unknown>, rows: readonly FirstRow[], to: readonly string[]): Promise<SampleOutcome[]> {
  const out: SampleOutcome[] = [];
  for (const [i, row] of rows.entries()) {
    const key = idempotencyKey(sampleRunId, i);
    const o = await client.sendRaw(sampleBody(message, row, to), { idempotencyKey: key });
    out.push({ line: row.line, idempotencyKey: key, outcome: o.kind, status: o.status ?? null, error: o.kind === 'accepted' ? null : o.message });
    if (o.kind !== 'accepted') break;
  }
  return out;
}

/** The error a sample that was not accepted ends with (the exit codes of `send`). */
export function sampleError(o: SampleOutcome, clean: (s: string) => string): MsgrError | undefined {
  const what = `the sample of line ${o.line}`;
  const why = `${o.status !== null ? `HTTP ${o.status}: ` : ''}${clean(o.error ?? '')}`;
  switch (o.outcome) {
    case 'accepted':
      return undefined;
    case 'auth':
      return new AuthError(`${what} was refused: ${why}`, { hint: 'Check the API key and account (msgr profile show tells where each came from).' });
    case 'rejected':
      return new RejectedError(`${what} was rejected: ${why}`, { hint: 'Nothing of the campaign was sent. Fix the message or the flags, and sample again.' });
    case 'not-sent':
      return new NotSentError(`${what} was not sent: ${why}`, { hint: 'Safe to run again.' });
    case 'unknown':
      return new OutcomeUnknownError(`${what} may or may not have been sent: ${why}`, { hint: `Check the sample numbers before sampling again (Idempotency-Key ${o.idempotencyKey}).` });
  }
}

/** The command that sends the campaign: this one without --sample-to and --sample. */
export function realRunCommand(argv: readonly string[]): string {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--sample-to' || a === '--sample') {
      i++;
      continue;
    }
    if (a.startsWith('--sample-to=') || a.startsWith('--sample=')) continue;
    args.push(shellQuote(a));
  }
  return ['msgr', ...args].join(' ');
}

/**
 * Sends the first rows' messages to the sample numbers, as a run of its own (its own keys, no
 * journal), reports each, and prints the command for the real run.
 */
export async function runSamples(
  ctx: Pick<Context, 'argv' | 'stdout'>,
  ui: Pick<Ui, 'info' | 'success'>,
  s: { client: MessagesClient; runId: string; message: Record<string, unknown>; rows: readonly FirstRow[]; to: readonly string[]; fileLabel: string; json: boolean; clean: (s: string) => string },
): Promise<void> {
  if (s.rows.length === 0) throw new UsageError(`--sample-to: ${s.fileLabel} has no row to send, so there is nothing to sample`);
  const results = await sendSamples(s.client, s.runId, s.message, s.rows, s.to);
  for (const r of results) ui.info(`sample: line ${r.line}'s message to ${s.to.join(', ')}: ${r.outcome === 'accepted' ? 'accepted' : `${r.outcome}${r.status !== null ? ` (HTTP ${r.status})` : ''}`}`);
  const failed = results.find((r) => r.outcome !== 'accepted');
  const err = failed !== undefined ? sampleError(failed, s.clean) : undefined;
  if (err !== undefined) throw err;
  const command = realRunCommand(ctx.argv);
  if (s.json) ctx.stdout.write(`${JSON.stringify({ sampleRunId: s.runId, to: s.to, samples: results, command, exitCode: ExitCode.OK }, null, 2)}\n`);
  ui.success(`sent ${fmt(results.length)} sample message${results.length === 1 ? '' : 's'} to ${s.to.join(', ')}; the campaign was not started and its rows' recipients got nothing`);
  ui.info(`  send the campaign with: ${command}`);
}
