// The checks that a resumed run sends exactly what it started with: the flags that decide what it
// sends, the msgr that started it, its validity and the preflight of the same bytes (docs/bulk.md:
// Nothing lost, nothing sent twice).
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Ui } from '../../output/ui.js';
import type { JournaledTarget, RunHeader } from '../journal/records.js';
import type { LoadedJournal } from '../journal/load.js';
import { metaMap } from '../compose/message.js';
import { headerKey } from '../input/columns.js';
import { columnKey } from '../../message/placeholders.js';
import { checkResumeTarget } from './target.js';
import type { PreflightResult } from '../preflight/range.js';
import { formatCount } from '../../output/count.js';
import { sameInput } from '../input/identity.js';

/** The flags a resumed run may repeat, but not change: they decide what it sends. */
export interface SendingFlags {
  readonly batchSize?: number | undefined;
  readonly msisdnColumn?: string | undefined;
  readonly varColumns?: readonly string[] | undefined;
  readonly metaColumns?: readonly string[] | undefined;
  readonly defaultCountry?: string | undefined;
  readonly allowDuplicates: boolean;
  readonly skipInvalid: boolean;
  readonly text?: string | undefined;
  readonly template?: string | undefined;
  readonly from?: string | undefined;
  readonly channel?: string | undefined;
  readonly account?: string | undefined;
  readonly name?: string | undefined;
  readonly characterSet?: string | undefined;
  readonly messageType?: string | undefined;
  readonly meta?: readonly string[] | undefined;
  readonly exclude?: string | undefined;
  readonly excludeColumn?: string | undefined;
  readonly noHeader?: boolean;
  readonly firstPerNumber?: boolean;
  readonly allowUnlistedNumbers?: boolean;
  readonly fixMojibake?: boolean;
  readonly encoding?: string | undefined;
  readonly delimiter?: string | undefined;
  readonly validity?: string | undefined;
  readonly noRender?: boolean | undefined;
  readonly textColumn?: string | undefined;
  readonly fromColumn?: string | undefined;
  readonly maxParts?: number | undefined;
}

/**
 * A resumed run sends exactly what it started with: the same flags, the same msgr (another may
 * normalise numbers differently, and so build other batches under the same Idempotency-Keys),
 * and a validity that has not passed.
 */
export function checkResume(ctx: Pick<Context, 'cwd' | 'now' | 'version'>, ui: Pick<Ui, 'warn'>, flags: SendingFlags, header: RunHeader): void {
  checkResumeFlags(flags, header, ui, ctx.cwd);
  const runId = header.runId;
  if (header.msgr !== ctx.version) {
    throw new UsageError(`--resume: run ${runId} was started by msgr ${header.msgr}; this is msgr ${ctx.version}`, {
      hint: 'Finish it with the msgr that started it, or start a new run with --restart.',
    });
  }
  const message = header.message;
  const validity = typeof message.validity === 'string' ? Date.parse(message.validity) : undefined;
  if (validity !== undefined && validity <= ctx.now().getTime()) {
    throw new UsageError(`--resume: run ${runId}'s validity (${String(message.validity)}) has passed; the remaining rows would not be delivered`, {
      hint: 'Start a new run with --restart and a new --validity.',
    });
  }
}

function checkResumeFlags(flags: SendingFlags, header: RunHeader, ui: Pick<Ui, 'warn'>, cwd: string): void {
  const shape = header.shape;
  const msg = header.message;
  const body = (msg.body ?? {}) as { text?: string; templateId?: string };
  const differs = (flag: string, was: unknown): never => {
    const started = was === null || was === false ? 'which was started without it' : `which sends ${JSON.stringify(was)}`;
    throw new UsageError(`--resume: ${flag} differs from run ${header.runId}, ${started}`, {
      hint: 'A resumed run sends exactly what it started with: drop the flag, or start a new run with --restart.',
    });
  };
  // Column names are compared as their header is searched: the CSV's by columnKey (the run records
  // the header's spelling), the --exclude list's by headerKey (as bulk/input/exclude.ts finds it).
  const sameColumn = (flag: string, was: string | null | undefined): boolean => was !== null && was !== undefined && columnKey(flag) === columnKey(was);
  const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => sameColumn(x, b[i]));
  if (flags.batchSize !== undefined && flags.batchSize !== shape.batchSize) differs('--batch-size', shape.batchSize);
  if (flags.msisdnColumn !== undefined && !sameColumn(flags.msisdnColumn, shape.msisdnColumn)) differs('--msisdn-column', shape.msisdnColumn);
  if (flags.varColumns !== undefined && !same(flags.varColumns, shape.varColumns)) differs('--var-columns', shape.varColumns.join(','));
  if (flags.metaColumns !== undefined && !same(flags.metaColumns, shape.metaColumns)) differs('--meta-columns', shape.metaColumns.join(','));
  if (flags.defaultCountry !== undefined && flags.defaultCountry.trim().toUpperCase() !== (shape.defaultCountry ?? '').toUpperCase()) differs('--default-country', shape.defaultCountry);
  if (flags.allowDuplicates && !shape.allowDuplicates) differs('--allow-duplicates', false);
  if (flags.skipInvalid && !shape.skipInvalid) differs('--skip-invalid', false);
  if (flags.text !== undefined && flags.text !== body.text) differs('--text', body.text ?? null);
  if (flags.template !== undefined && flags.template !== body.templateId) differs('--template', body.templateId ?? null);
  if (flags.from !== undefined && flags.from !== msg.from) differs('--from', msg.from);
  if (flags.channel !== undefined && flags.channel.trim().toUpperCase() !== msg.channel) differs('--channel', msg.channel);
  if (flags.account !== undefined && flags.account !== msg.accountReference) differs('--account', msg.accountReference);
  if (flags.name !== undefined && flags.name !== msg.name) differs('--name', msg.name ?? null);
  if (flags.characterSet !== undefined && flags.characterSet !== msg.characterSet) differs('--character-set', msg.characterSet ?? null);
  if (flags.messageType !== undefined && flags.messageType !== msg.messageType) differs('--message-type', msg.messageType ?? null);
  if (flags.meta !== undefined && JSON.stringify(metaMap(flags.meta)) !== JSON.stringify(msg.metaData ?? {})) differs('--meta', msg.metaData ?? null);
  if (flags.exclude !== undefined && resolve(cwd, flags.exclude) !== shape.exclude?.path) differs('--exclude', shape.exclude?.path ?? null);
  if (flags.excludeColumn !== undefined && (shape.exclude?.column === undefined || headerKey(flags.excludeColumn) !== headerKey(shape.exclude.column))) differs('--exclude-column', shape.exclude?.column ?? null);
  if (flags.noHeader === true && shape.noHeader !== true) differs('--no-header', false);
  if (flags.firstPerNumber === true && shape.firstPerNumber !== true) differs('--first-per-number', false);
  if (flags.allowUnlistedNumbers === true && shape.allowUnlisted !== true) differs('--allow-unlisted-numbers', false);
  if (flags.fixMojibake === true && shape.fixMojibake !== true) differs('--fix-mojibake', false);
  if (flags.encoding !== undefined && flags.encoding !== shape.encoding) differs('--encoding', shape.encoding);
  if (flags.delimiter !== undefined && flags.delimiter !== shape.delimiter) differs('--delimiter', shape.delimiter);
  const personal = shape.personal;
  if (flags.noRender === true && personal?.render === true) differs('--no-render', 'rendered texts');
  if (flags.textColumn !== undefined && !sameColumn(flags.textColumn, personal?.textColumn)) differs('--text-column', personal?.textColumn ?? null);
  if (flags.fromColumn !== undefined && !sameColumn(flags.fromColumn, personal?.fromColumn)) differs('--from-column', personal?.fromColumn ?? null);
  if (flags.maxParts !== undefined && flags.maxParts !== personal?.maxParts) differs('--max-parts', personal?.maxParts ?? null);
  if (flags.validity !== undefined) ui.warn(`--resume: run ${header.runId} keeps its validity (${typeof msg.validity === 'string' ? msg.validity : 'none'}); --validity is ignored`);
}

/**
 * Why `--resume` of an unfinished run would be refused with these flags, this target and a file
 * of this content hash (the checks a resume makes, without their output); undefined when it would
 * go on. For a sample, which names the command that continues the campaign.
 */
export function resumeRefusal(ctx: Pick<Context, 'cwd' | 'now' | 'version'>, flags: SendingFlags, header: RunHeader, now: JournaledTarget, accountGiven: boolean, hash: string): string | undefined {
  try {
    checkResume(ctx, { warn: () => undefined }, flags, header);
    checkResumeTarget(header, now, accountGiven);
  } catch (err) {
    if (err instanceof UsageError) return err.message.replace(/^--resume: /, '').replace(/; nothing was sent$/, '');
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
export function resumeBlocked(ctx: Pick<Context, 'cwd' | 'now' | 'version'>, header: RunHeader, fileAbs: string | undefined): string | undefined {
  try {
    checkResume(ctx, { warn: () => undefined }, { allowDuplicates: false, skipInvalid: false }, header);
  } catch (err) {
    if (err instanceof UsageError) return err.message.replace(/^--resume: /, '');
    throw err;
  }
  if (!header.input.stdin && fileAbs !== undefined && !sameInput(fileAbs, header.input)) return `${fileAbs} changed since run ${header.runId} started`;
  return undefined;
}

/**
 * The same bytes, read with the same flags and msgr, must give the same preflight as the run
 * being resumed; if not, the batches would not line up with the journal's, so nothing is sent.
 */
export function checkSamePreflight(previous: LoadedJournal, pre: PreflightResult, fileLabel: string): void {
  const runId = previous.header.runId;
  if (pre.hash !== previous.header.input.hash) {
    throw new UsageError(`--resume: ${fileLabel} changed since run ${runId} started (its content hash differs)`, {
      hint: 'A resumed run must read the same file, or rows could be skipped or sent twice. Restore the file, or start a new run of the changed file with --restart: it leaves out every number this run accepted.',
    });
  }
  if (pre.rows !== previous.header.totals.rows || pre.toSend !== previous.header.totals.toSend || pre.requests !== previous.header.totals.requests) {
    const was = previous.header.totals;
    throw new UsageError(`--resume: ${fileLabel} is unchanged, but its preflight now gives ${formatCount(pre.rows)} rows and ${formatCount(pre.toSend)} to send where run ${runId} had ${formatCount(was.rows)} and ${formatCount(was.toSend)}; nothing was sent`, {
      hint: 'This is a bug in msgr; please report it. Running again with MSGR_BULK_PARALLEL_MIN_BYTES=off reads the file in one pass.',
    });
  }
}

