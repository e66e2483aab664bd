// Campaign keys in send-bulk (`--once KEY`; docs/reruns.md: "Campaign keys"). The key's run lives in
// the key's own folder (once/keys.ts), so a command with the key finds it from any file path, flags
// or host that reaches the same state folder: it continues the run while it is unfinished, says
// "already done" once it finished, and reports "running now" while another process sends it. A
// key names one campaign: the same key with another message or other data is refused, quoting what
// the key was used for.
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { LockOwner } from '../../files/lock.js';
import type { RunHeader } from '../journal/records.js';
import { buildMessage } from '../compose/base-request.js';
import { runMessage } from '../compose/run-message.js';
import type { Campaign } from '../campaign.js';
import { describeSender, describeText } from '../this-run/where.js';
import { refusalError, type Refusal } from '../this-run/unfinished.js';
import { shellQuote } from '../../output/shell.js';
import { definitionDifferences, journaledDefinition, type MessageDefinition } from '../compose/definition.js';
import { formatCount } from '../../output/count.js';
import { sameData, statInput } from '../input/identity.js';
import type { EarlierRun } from './of-file.js';
import { FLAG } from '../flag-names.js';

/** What the key was used for, for people: `run X (started T): /srv/today.csv, 2,000 rows, text "…", from Acme`. */
export function describeKeyUse(header: RunHeader): string {
  const file = header.input.stdin ? 'data read from stdin' : header.input.path;
  const text = describeText(header.message, header.shape.personal, 40);
  const from = describeSender(header.message, header.shape.personal);
  return `run ${header.runId} (started ${header.createdAt}): ${file}, ${formatCount(header.totals.rows)} row${header.totals.rows === 1 ? '' : 's'}${text !== undefined ? `, ${text}` : ''}${from !== undefined ? `, from ${from}` : ''}`;
}

/**
 * The key's run is being sent by another process: that one finishes it and reports. This process
 * sends nothing and says so (nothing under -q: two cron jobs firing at once are no one's mistake).
 */
export function runningNowDocument(key: string, owner: LockOwner, journal: string): { line: string; doc: Record<string, unknown> } {
  const who = owner.pid > 0 ? `msgr pid ${owner.pid} on ${owner.host}, since ${owner.startedAt}` : 'another msgr, starting now';
  return {
    line: `running now: the run under ${FLAG.once} ${key} is being sent by ${who}; this command sent nothing (that one reports how it ends)`,
    doc: { once: key, journal, runningNow: { pid: owner.pid, host: owner.host, startedAt: owner.startedAt }, exitCode: ExitCode.OK },
  };
}

/** What a command with the key of an existing run is checked against: that run, and this command. */
export interface KeyUse {
  readonly key: string;
  readonly header: RunHeader;
  readonly finished: boolean;
  readonly campaign: Pick<Campaign, 'message' | 'input' | 'where' | 'earlier'>;
  readonly input: string | undefined;
  readonly freeKey: string;
}

/**
 * A command with the key of an existing run must mean that run: its message (when the command
 * gives one) and its data. Another one is refused, quoting what the key was used for; a run left
 * unfinished can be abandoned for the new data under the key (--restart), a finished one cannot.
 */
export async function checkKeyUse(ctx: Pick<Context, 'cwd' | 'now' | 'stdin'>, o: KeyUse): Promise<void> {
  const refusal = await keyUseRefusal(ctx, o);
  if (refusal !== undefined) throw refusalError(refusal);
}

/** checkKeyUse's refusal, in words, for a dry run or preview to say after its preflight; undefined: the key's run is this command's. */
export async function keyUseRefusal(ctx: Pick<Context, 'cwd' | 'now' | 'stdin'>, o: KeyUse): Promise<Refusal | undefined> {
  const { key, header } = o;
  // The command the hint offers must be accepted: under a new key the file's earlier runs (the
  // key's among them) still count, so it says what to do about their numbers (docs/reruns.md:
  // "Running a file again") unless the command already does.
  const stated = o.campaign.earlier.again || o.campaign.earlier.skipSent !== undefined;
  const offer = (intent: string): string => `${FLAG.once} ${shellQuote(o.freeKey)}${stated ? '' : ` ${intent}`}`;
  const m = o.campaign.message;
  if (m.text !== undefined || m.textFile !== undefined || m.template !== undefined || m.textColumn !== undefined) {
    const message = await buildMessage(ctx, o.campaign);
    const personal = { render: m.render, textColumn: m.textColumn ?? null, fromColumn: m.fromColumn ?? null, maxParts: m.maxParts ?? null };
    // A message that cannot be sent (a placeholder without its }}, more parts than --max-parts) is
    // refused as such, as the run would refuse it: a refusal's hint offers only commands that
    // would then be accepted, and another key or --again would not be.
    runMessage(message, personal, m.textFile !== undefined ? FLAG.textFile : FLAG.text);
    const diffs = definitionDifferences(journaledDefinition(header), { message, personal });
    // Another message: to numbers the key's run may have reached, on purpose (--again).
    if (diffs.length > 0) return keyReused(key, header, `this command sends another message (${diffs.join(', ')} differ${diffs.length === 1 ? 's' : ''})`, false, offer(FLAG.again), stated ? '' : FLAG.again);
  }
  if (o.input === undefined) return undefined;
  const now = statInput(o.input, o.input);
  if (!(await sameData(o.input, now, header.input))) {
    const size = now.size === header.input.size ? `the same size, ${formatCount(now.size)} bytes, but other bytes` : `${formatCount(now.size)} bytes, ${formatCount(header.input.size)} then`;
    // The same message to other data (a list grown): the numbers that have not had it (--skip-sent).
    return keyReused(key, header, `${header.input.stdin ? 'the data piped in now' : o.input} holds other data (${size})`, !o.finished, offer(FLAG.skipSent), stated ? '' : FLAG.skipSent, o.campaign.earlier.again);
  }
  return undefined;
}

function keyReused(key: string, header: RunHeader, what: string, unfinished: boolean, offered: string, intent: string, again = false): Refusal {
  const other = `give this campaign a key of its own (e.g. ${offered}), or leave ${FLAG.once} out${intent !== '' ? ` and add ${intent}` : ''}`;
  return {
    message: `${FLAG.once} ${key} was used for ${describeKeyUse(header)}; ${what}; nothing was sent`,
    hint: unfinished
      ? `A key names one campaign. If the file was replaced while run ${header.runId} was unfinished, abandon it and send this data under the key with ${FLAG.once} ${shellQuote(key)} ${FLAG.restart} (it leaves out the rows run ${header.runId} accepted${again ? `, ${FLAG.again} or not: a key messages each number once` : ''}); otherwise ${other}.`
      : `A key names one campaign: ${other}.`,
  };
}

/**
 * A new run under a campaign key whose input is the same data (the same content, whatever its
 * name) as an earlier run's under another key, or under none, that sent the same message
 * (docs/reruns.md: "The same data under another key"): the daily cron line run on a
 * `today.csv` nobody replaced. Another message to the same list is another campaign. The newest
 * such run; undefined when there is none.
 */
export async function sameDataRun(earlier: readonly EarlierRun[], key: string, input: { readonly path: string; readonly size: number; readonly quickHash: string }, definition: MessageDefinition): Promise<EarlierRun | undefined> {
  const memo = {};
  for (const r of [...earlier].reverse()) {
    if (r.header.once?.key === key || definitionDifferences(journaledDefinition(r.header), definition).length > 0) continue;
    if (await sameData(input.path, input, r.header.input, memo)) return r;
  }
  return undefined;
}

/**
 * The same, among runs found by the data their input held however saved (earlierRunsWithSameData):
 * the same export saved again with other line ends or quoting, which its bytes do not find.
 */
export function sameDataAmong(found: readonly EarlierRun[], key: string, definition: MessageDefinition): EarlierRun | undefined {
  return [...found].reverse().find((r) => r.header.once?.key !== key && definitionDifferences(journaledDefinition(r.header), definition).length === 0);
}

/** What --json says of that run (`sameData`). */
export function sameDataJson(r: EarlierRun): Record<string, unknown> {
  return { runId: r.header.runId, key: r.header.once?.key ?? null, finished: r.finished, finishedAt: r.finishedAt ?? null, file: r.header.input.stdin ? '-' : r.header.input.path, journal: r.journal };
}

/** The refusal of such a run, naming that run, its key and when it finished, and the flag for the case that is meant. */
export function sameDataError(r: EarlierRun, key: string, fileLabel: string, jsonFor: (exitCode: ExitCode) => unknown): UsageError {
  const was = r.header.once !== undefined ? `${FLAG.once} ${r.header.once.key}` : `no ${FLAG.once}`;
  const when = r.finished ? `finished ${r.finishedAt ?? r.header.createdAt}` : `left unfinished, started ${r.header.createdAt}`;
  const where = r.header.input.stdin ? 'data read from stdin' : r.header.input.path === fileLabel || r.header.input.path.endsWith(`/${fileLabel}`) ? 'this file' : r.header.input.path;
  return new UsageError(`${fileLabel} holds the same data as run ${r.header.runId} under ${was} (${where}, ${when}); under ${FLAG.once} ${key} it would send the same rows again; nothing was sent`, {
    hint: `If the file was not replaced (an export that did not run), replace it with the new data and run the command again. If these rows are meant for ${FLAG.once} ${key} too, add ${FLAG.sameData}.`,
    jsonFor,
  });
}
