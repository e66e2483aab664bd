// The checks that a resumed run sends exactly what it started with: the flags that decide what it
// sends, the msgr that started it, its validity and the preflight of the same bytes (docs/files.md:
// "Nothing lost, nothing sent twice").
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Ui } from '../../output/ui.js';
import type { JournaledTarget, RunHeader } from '../journal/records.js';
import type { LoadedJournal } from '../journal/load.js';
import { metaMap } from '../compose/base-request.js';
import { headerKey } from '../../csv/header.js';
import { columnKey } from '../../message/placeholders.js';
import { checkResumeTarget } from './where.js';
import type { PreflightResult } from '../preflight/range.js';
import { formatCount } from '../../output/count.js';
import { sameInput } from '../input/identity.js';
import type { Campaign } from '../campaign.js';
import { FLAG } from '../flag-names.js';

/** What a resume's command may repeat, but not change: it decides what the run sends. */
export type ResumeGiven = Pick<Campaign, 'message' | 'input' | 'pace' | 'where'>;

/**
 * A resumed run sends exactly what it started with: the same flags, the same msgr (another may
 * normalise numbers differently, and so build other batches under the same Idempotency-Keys),
 * and a validity that has not passed. `given`: what the command says; undefined: nothing to compare.
 */
export function checkResume(ctx: Pick<Context, 'now' | 'version'>, ui: Pick<Ui, 'warn'>, given: ResumeGiven | undefined, header: RunHeader): void {
  if (given !== undefined) checkResumeFlags(given, header, ui);
  const runId = header.runId;
  if (header.msgr !== ctx.version) {
    throw new UsageError(`${FLAG.resume}: run ${runId} was started by msgr ${header.msgr}; this is msgr ${ctx.version}`, {
      hint: `Finish it with the msgr that started it, or start a new run with ${FLAG.restart}.`,
    });
  }
  const message = header.message;
  const validity = typeof message.validity === 'string' ? Date.parse(message.validity) : undefined;
  if (validity !== undefined && validity <= ctx.now().getTime()) {
    throw new UsageError(`${FLAG.resume}: run ${runId}'s validity (${String(message.validity)}) has passed; the remaining rows would not be delivered`, {
      hint: `Start a new run with ${FLAG.restart} and a new ${FLAG.validity}.`,
    });
  }
}

function checkResumeFlags(given: ResumeGiven, header: RunHeader, ui: Pick<Ui, 'warn'>): void {
  const shape = header.shape;
  const msg = header.message;
  const body = (msg.body ?? {}) as { text?: string; templateId?: string };
  const differs = (flag: string, was: unknown): never => {
    const started = was === null || was === false ? 'which was started without it' : `which sends ${JSON.stringify(was)}`;
    throw new UsageError(`${FLAG.resume}: ${flag} differs from run ${header.runId}, ${started}`, {
      hint: `A resumed run sends exactly what it started with: drop the flag, or start a new run with ${FLAG.restart}.`,
    });
  };
  // Column names are compared as their header is searched: the CSV's by columnKey (the run records
  // the header's spelling), the --exclude list's by headerKey (as bulk/input/exclude.ts finds it).
  const sameColumn = (flag: string, was: string | null | undefined): boolean => was !== null && was !== undefined && columnKey(flag) === columnKey(was);
  const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => sameColumn(x, b[i]));
  const { message: m, input, pace } = given;
  const { columns, rows, format, exclude } = input;
  if (pace.batchSize !== undefined && pace.batchSize !== shape.batchSize) differs(FLAG.batchSize, shape.batchSize);
  if (columns.msisdn !== undefined && !sameColumn(columns.msisdn, shape.msisdnColumn)) differs(FLAG.msisdnColumn, shape.msisdnColumn);
  if (columns.vars !== undefined && !same(columns.vars, shape.varColumns)) differs(FLAG.varColumns, shape.varColumns.join(','));
  if (columns.meta !== undefined && !same(columns.meta, shape.metaColumns)) differs(FLAG.metaColumns, shape.metaColumns.join(','));
  // A run started without one read only international numbers from its file: the country given
  // now reads the --exclude list's national numbers, never the file's (bulk/this-run/run-plan.ts).
  if (input.defaultCountry !== undefined && shape.defaultCountry !== null && input.defaultCountry.trim().toUpperCase() !== shape.defaultCountry.toUpperCase()) differs(FLAG.defaultCountry, shape.defaultCountry);
  if (rows.allowDuplicates && !shape.allowDuplicates) differs(FLAG.allowDuplicates, false);
  if (rows.skipInvalid && !shape.skipInvalid) differs(FLAG.skipInvalid, false);
  if (m.text !== undefined && m.text !== body.text) differs(FLAG.text, body.text ?? null);
  if (m.template !== undefined && m.template !== body.templateId) differs(FLAG.template, body.templateId ?? null);
  if (m.from !== undefined && m.from !== msg.from) differs(FLAG.from, msg.from);
  if (m.channel !== undefined && m.channel.trim().toUpperCase() !== msg.channel) differs(FLAG.channel, msg.channel);
  if (given.where.account !== undefined && given.where.account !== msg.accountReference) differs(FLAG.account, msg.accountReference);
  if (m.name !== undefined && m.name !== msg.name) differs(FLAG.name, msg.name ?? null);
  if (m.characterSet !== undefined && m.characterSet !== msg.characterSet) differs(FLAG.characterSet, msg.characterSet ?? null);
  if (m.messageType !== undefined && m.messageType !== msg.messageType) differs(FLAG.messageType, msg.messageType ?? null);
  if (m.meta !== undefined && JSON.stringify(metaMap(m.meta)) !== JSON.stringify(msg.metaData ?? {})) differs(FLAG.meta, msg.metaData ?? null);
  if (exclude !== undefined && exclude.path !== shape.exclude?.path) differs(FLAG.exclude, shape.exclude?.path ?? null);
  if (exclude?.column !== undefined && (shape.exclude?.column === undefined || headerKey(exclude.column) !== headerKey(shape.exclude.column))) differs(FLAG.excludeColumn, shape.exclude?.column ?? null);
  if (!columns.headerRow && shape.noHeader !== true) differs(FLAG.noHeader, false);
  if (rows.firstPerNumber && shape.firstPerNumber !== true) differs(FLAG.firstPerNumber, false);
  if (rows.allowUnlisted && shape.allowUnlisted !== true) differs(FLAG.allowUnlistedNumbers, false);
  if (rows.fixMojibake && shape.fixMojibake !== true) differs(FLAG.fixMojibake, false);
  if (rows.mobileOnly && shape.mobileOnly !== true) differs(FLAG.mobileOnly, false);
  if (format.encoding !== undefined && format.encoding !== shape.encoding) differs(FLAG.encoding, shape.encoding);
  if (format.delimiter !== undefined && format.delimiter !== shape.delimiter) differs(FLAG.delimiter, shape.delimiter);
  const personal = shape.personal;
  if (!m.render && personal?.render === true) differs(FLAG.noRender, 'rendered texts');
  if (m.textColumn !== undefined && !sameColumn(m.textColumn, personal?.textColumn)) differs(FLAG.textColumn, personal?.textColumn ?? null);
  if (m.fromColumn !== undefined && !sameColumn(m.fromColumn, personal?.fromColumn)) differs(FLAG.fromColumn, personal?.fromColumn ?? null);
  if (m.maxParts !== undefined && m.maxParts !== personal?.maxParts) differs(FLAG.maxParts, personal?.maxParts ?? null);
  if (m.validity !== undefined) ui.warn(`${FLAG.resume}: run ${header.runId} keeps its validity (${typeof msg.validity === 'string' ? msg.validity : 'none'}); ${FLAG.validity} is ignored`);
}

/** A resume's refusal without the flag it starts with ("--resume: "): why, for another message to say. */
function refusalReason(message: string): string {
  const prefix = `${FLAG.resume}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/**
 * Why `--resume` of an unfinished run would be refused with these flags, this target and a file
 * of this content hash (the checks a resume makes, without their output); undefined when it would
 * go on. For a sample, which names the command that continues the campaign.
 */
export function resumeRefusal(ctx: Pick<Context, 'now' | 'version'>, given: ResumeGiven, header: RunHeader, now: JournaledTarget, accountGiven: boolean, hash: string): string | undefined {
  try {
    checkResume(ctx, { warn: () => undefined }, given, header);
    checkResumeTarget(header, now, accountGiven);
  } catch (err) {
    if (err instanceof UsageError) return refusalReason(err.message).replace(/; nothing was sent$/, '');
    throw err;
  }
  if (hash !== header.input.hash) return `the file changed since run ${header.runId} started`;
  return undefined;
}

/**
 * Why `--resume` of an unfinished run, given no flags that decide what it sends, would be refused
 * now: another msgr started it, its validity passed, or its file changed (size or quick hash);
 * undefined when it would go on. A refusal beside such a run offers --restart alone (every
 * refusal offers only commands that would be accepted).
 */
export function resumeBlocked(ctx: Pick<Context, 'now' | 'version'>, header: RunHeader, fileAbs: string | undefined): string | undefined {
  try {
    checkResume(ctx, { warn: () => undefined }, undefined, header);
  } catch (err) {
    if (err instanceof UsageError) return refusalReason(err.message);
    throw err;
  }
  if (!header.input.stdin && fileAbs !== undefined && !sameInput(fileAbs, header.input)) return `${fileAbs} changed since run ${header.runId} started`;
  return undefined;
}

/**
 * The same bytes, read with the same flags and msgr, must give the same preflight as the run
 * being resumed; if not, the batches would not line up with the journal's, so nothing is sent.
 */
export function checkSamePreflight(resumed: LoadedJournal, pre: PreflightResult, fileLabel: string): void {
  const runId = resumed.header.runId;
  if (pre.hash !== resumed.header.input.hash) {
    throw new UsageError(`${FLAG.resume}: ${fileLabel} changed since run ${runId} started (its content hash differs)`, {
      hint: `A resumed run must read the same file, or rows could be skipped or sent twice. Restore the file, or start a new run of the changed file with ${FLAG.restart}: it leaves out every number this run accepted.`,
    });
  }
  if (pre.rows !== resumed.header.totals.rows || pre.toSend !== resumed.header.totals.toSend || pre.requests !== resumed.header.totals.requests) {
    const was = resumed.header.totals;
    throw new UsageError(`${FLAG.resume}: ${fileLabel} is unchanged, but its preflight now gives ${formatCount(pre.rows)} rows and ${formatCount(pre.toSend)} to send where run ${runId} had ${formatCount(was.rows)} and ${formatCount(was.toSend)}; nothing was sent`, {
      hint: 'This is a bug in msgr; please report it. Running again with MSGR_BULK_PARALLEL_MIN_BYTES=off reads the file in one pass.',
    });
  }
}

