// A sample to yourself (docs/personalised.md: "Personalised messages"): the first rows' messages, each sent to
// the --sample-to numbers instead of the row's recipient, as a run of its own. It has its own run
// id and Idempotency-Keys and never touches the campaign's journal, so the campaign afterwards
// sends to every row as if the sample had not happened.
import { describeOptOut, type OptOuts } from '../../optouts/store.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { MessagesClient } from '../../http/client.js';
import type { Ui } from '../../output/ui.js';
import type { Outcome } from '../../http/outcome.js';
import { outcomeError, type OutcomeErrorOptions } from '../../http/outcome-error.js';
import { asciiJson } from '../input/columns.js';
import type { NumberChecker } from '../input/number-check.js';
import { numberKey, type NumberSet } from '../input/number-set.js';
import { requestFrame } from '../compose/base-request.js';
import type { FirstRow } from '../preflight/range.js';
import { messageForKey } from '../compose/personalise.js';
import { idempotencyKey } from '../journal/run-keys.js';
import { formatCount } from '../../output/count.js';
import type { Rerun } from '../campaign.js';
import { FLAG } from '../flag-names.js';

export interface SampleOutcome {
  readonly line: number;
  readonly idempotencyKey: string;
  readonly outcome: Outcome['kind'];
  readonly status: number | null;
  readonly error: string | null;
}

/**
 * The --sample-to numbers, checked (before the file is read) and normalised, each once; undefined
 * without the flag. A number on the --exclude list, or in the opt-out store (unless the campaign
 * includes them), is refused: it opted out, sample or not.
 */
export function sampleNumbers(to: readonly string[] | undefined, checker: NumberChecker, exclude?: { readonly set: NumberSet; readonly label: string }, optOuts?: Pick<OptOuts, 'get' | 'removeCommand'>): string[] | undefined {
  if (to === undefined) return undefined;
  const numbers = to.map((n) => {
    const r = checker.check(n);
    if (r.verdict === 'invalid') {
      const hint = r.needsCountry === true ? `Write it as +<country code><number>, or add ${FLAG.defaultCountry}.` : r.hint;
      throw new UsageError(`${FLAG.sampleTo}: ${r.reason ?? `"${n}" is not a phone number`}`, hint !== undefined ? { hint } : {});
    }
    if (exclude?.set.has(numberKey(r.e164)) === true) {
      throw new UsageError(`${FLAG.sampleTo}: ${r.e164} is on the ${FLAG.exclude} list ${exclude.label}; a sample to it would message a number that opted out`, {
        hint: 'Send the sample to another number, or take this one off the list if it should not be there.',
      });
    }
    const out = optOuts?.get(r.e164);
    if (optOuts !== undefined && out !== undefined) {
      throw new UsageError(`${FLAG.sampleTo}: ${r.e164} is in the opt-out store (${describeOptOut(out)}); a sample to it would message a number that opted out`, {
        hint: `Send the sample to another number, or take this one off the store if it opted in again (${optOuts.removeCommand(r.e164)}).`,
      });
    }
    return r.e164;
  });
  // "+447911123999" and "07911123999" are one phone: it gets each sample once.
  return [...new Set(numbers)];
}

/** The whole request one of the first rows is sent in, but with that row as its only recipient. */
export function rowRequest(message: Record<string, unknown>, row: FirstRow): Record<string, unknown> {
  return row.key !== undefined ? messageForKey(message, row.key) : message;
}

/** The body of row `row`'s sample: its request, its recipient entry once per sample number. */
export function sampleBody(message: Record<string, unknown>, row: FirstRow, to: readonly string[]): string {
  const frame = requestFrame(rowRequest(message, row));
  // The row's variables and metaData stay (a template needs them); only the number changes.
  const entry = JSON.parse(row.recipient) as Record<string, unknown>;
  const recipients = to.map((msisdn) => asciiJson(JSON.stringify({ ...entry, msisdn })));
  return `${frame.prefix}${recipients.join(',')}${frame.suffix}`;
}

/** Sends the samples one after the other; stops at the first that is not accepted, and returns its outcome. */
export async function sendSamples(client: MessagesClient, sampleRunId: string, message: Record<string, unknown>, rows: readonly FirstRow[], to: readonly string[]): Promise<{ results: SampleOutcome[]; failure?: Exclude<Outcome, { kind: 'accepted' }> }> {
  const results: SampleOutcome[] = [];
  for (const [i, row] of rows.entries()) {
    const key = idempotencyKey(sampleRunId, i);
    const o = await client.sendRaw(sampleBody(message, row, to), { idempotencyKey: key });
    results.push({ line: row.line, idempotencyKey: key, outcome: o.kind, status: o.status ?? null, error: o.kind === 'accepted' ? null : o.message });
    if (o.kind !== 'accepted') return { results, failure: o };
  }
  return { results };
}

/** An unfinished run of the same file, as a sample finds it. */
export interface UnfinishedRun {
  readonly runId: string;
  /** Its process is sending now. */
  readonly sending: boolean;
  /** Why --resume would be refused with this command (a changed text, another target); undefined: it would go on. */
  readonly resumeRefusal: string | undefined;
  /** Why --restart would not leave out the rows it accepted (another message); undefined: it would. */
  readonly restartSendsToAll?: string | undefined;
}

/** What a sample prints for the real run: the command that works, beside an unfinished run too. */
function nextStep(rerun: Rerun, unfinished: UnfinishedRun | undefined): { command: string; lines: string[]; facts: Record<string, unknown> } {
  if (unfinished === undefined) {
    const command = rerun.campaign;
    return { command, lines: [`  send the campaign with: ${command}`], facts: {} };
  }
  const { runId } = unfinished;
  const { resume, restart } = rerun;
  if (unfinished.sending) {
    return { command: resume, lines: [`  run ${runId} of this file is sending now; once it ends, what it left goes with: ${resume}`], facts: { unfinishedRun: runId, sendingNow: true } };
  }
  if (unfinished.resumeRefusal !== undefined) {
    return {
      command: restart,
      lines: [`  run ${runId} of this file is unfinished, and this command cannot continue it (${unfinished.resumeRefusal});`, `  start over with: ${restart} (${unfinished.restartSendsToAll !== undefined ? `run ${runId} ${unfinished.restartSendsToAll}: the rows it accepted are not left out` : `it leaves out the rows run ${runId} accepted`})`],
      facts: { unfinishedRun: runId, resumeRefused: unfinished.resumeRefusal },
    };
  }
  return { command: resume, lines: [`  run ${runId} of this file is unfinished: continue it with ${resume}`, `  or start over with ${restart}`], facts: { unfinishedRun: runId, restartCommand: restart } };
}

/**
 * Sends the first rows' messages to the sample numbers, as a run of its own (its own keys, no
 * journal), reports each, and prints the command for the real run.
 */
export async function runSamples(
  ctx: Pick<Context, 'stdout'>,
  ui: Pick<Ui, 'info' | 'success'>,
  s: { client: MessagesClient; runId: string; message: Record<string, unknown>; rows: readonly FirstRow[]; to: readonly string[]; fileLabel: string; json: boolean; apiKey: string; tty: boolean; unfinished?: UnfinishedRun | undefined; address?: OutcomeErrorOptions['address']; rerun: Rerun },
): Promise<void> {
  if (s.rows.length === 0) throw new UsageError(`${FLAG.sampleTo}: ${s.fileLabel} has no row to send, so there is nothing to sample`);
  const { results, failure } = await sendSamples(s.client, s.runId, s.message, s.rows, s.to);
  for (const r of results) ui.info(`sample: line ${r.line}'s message to ${s.to.join(', ')}: ${r.outcome === 'accepted' ? 'accepted' : `${r.outcome}${r.status !== null ? ` (HTTP ${r.status})` : ''}`}`);
  if (failure !== undefined) {
    const last = results[results.length - 1] as SampleOutcome;
    // The error as `send` names it (the same exit codes), with the samples sent before it beside
    // it in the --json document, so a script sees which reached the phones.
    throw outcomeError(failure, {
      apiKey: s.apiKey,
      tty: s.tty,
      prefix: `the sample of line ${last.line}: `,
      rejectedHint: 'Nothing of the campaign was sent. Fix the message or the flags, and sample again.',
      ...(s.address !== undefined ? { address: s.address } : {}),
      notSentHint: 'Nothing of the campaign was sent; it is safe to sample again.',
      unknownHint: `Check the sample numbers before sampling again (Idempotency-Key ${last.idempotencyKey}).`,
      facts: { sampleRunId: s.runId, to: s.to, samples: results },
    });
  }
  // Beside an unfinished run the command alone is refused: it goes on with --resume (the same
  // message and target) or starts over with --restart (leaving out the rows that run accepted).
  const next = nextStep(s.rerun, s.unfinished);
  if (s.json) ctx.stdout.write(`${JSON.stringify({ sampleRunId: s.runId, to: s.to, samples: results, command: next.command, ...next.facts, exitCode: ExitCode.OK }, null, 2)}\n`);
  ui.success(`sent ${formatCount(results.length)} sample message${results.length === 1 ? '' : 's'} to ${s.to.join(', ')}; the campaign was not started and its rows' recipients got nothing`);
  for (const line of next.lines) ui.info(line);
}
