// What a bulk run sends and how it cuts the file into batches (the journal header's message and
// shape): from the flags for a new run, exactly as journaled for a resumed one. Also the number
// checker and the exclude list those imply.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CountryCode } from 'libphonenumber-js/max';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { checkCountry } from '../../message/numbers.js';
import type { Ui } from '../../output/ui.js';
import { describeSource, type Settings } from '../../settings/resolve.js';
import { loadExcludes, type ExcludeList } from '../input/exclude.js';
import type { NumberSet } from '../input/number-set.js';
import { sinceStart, type OptOutSource } from '../send/opt-outs.js';
import type { RunShape } from '../journal/records.js';
import type { LoadedJournal } from '../journal/load.js';
import { buildMessage, type MessageFlags } from '../compose/message.js';
import { createNumberChecker, type NumberChecker } from '../input/number-check.js';
import type { PreflightResult } from '../preflight/range.js';
import type { CsvFormat } from '../input/csv.js';
import { checkResume, type SendingFlags } from './resume-checks.js';
import { DEFAULT_BATCH_SIZE } from '../campaign.js';

export type PlanFlags = MessageFlags & SendingFlags;

export interface RunPlan {
  /** The request without recipients, as every batch sends it. */
  readonly message: Record<string, unknown>;
  readonly shape: RunShape;
  readonly country: CountryCode | undefined;
  readonly checker: NumberChecker;
  /** The --exclude list; on a resume, its numbers as the run started (bulk/send/opt-outs.ts). */
  readonly exclude: ExcludeList | undefined;
  /** The lists of numbers not to message, as read now: kept beside a new run's journal. */
  readonly optOuts: readonly OptOutSource[];
  /** On a resume: numbers that went on a list since the run started, left out of the batches not sent yet. */
  readonly excludedAfterStart: NumberSet | undefined;
}

export async function planRun(ctx: Context, ui: Ui, flags: PlanFlags, settings: Settings, previous: LoadedJournal | undefined, journalPath: string): Promise<RunPlan> {
  let message: Record<string, unknown>;
  let shape: RunShape;
  if (previous !== undefined) {
    message = previous.header.message;
    shape = previous.header.shape;
    checkResume(ctx, ui, flags, previous.header);
  } else {
    message = await buildMessage(ctx, flags, settings);
    shape = {
      batchSize: flags.batchSize ?? DEFAULT_BATCH_SIZE,
      encoding: flags.encoding ?? '',
      delimiter: flags.delimiter ?? '',
      msisdnColumn: flags.msisdnColumn ?? '',
      varColumns: flags.varColumns ?? [],
      metaColumns: flags.metaColumns ?? [],
      // Flag > MSGR_DEFAULT_COUNTRY > profile, checked (UK → "did you mean GB?") and journaled.
      defaultCountry: settings.defaultCountry.value !== undefined ? checkCountry(settings.defaultCountry.value, describeSource(settings.defaultCountry)) : null,
      allowDuplicates: flags.allowDuplicates,
      skipInvalid: flags.skipInvalid,
      exclude: flags.exclude !== undefined ? { path: resolve(ctx.cwd, flags.exclude), hash: '', ...(flags.excludeColumn !== undefined ? { column: flags.excludeColumn } : {}) } : null,
      ...(flags.noHeader === true ? { noHeader: true } : {}),
      ...(flags.firstPerNumber === true ? { firstPerNumber: true } : {}),
      ...(flags.allowUnlistedNumbers === true ? { allowUnlisted: true } : {}),
      ...(flags.fixMojibake === true ? { fixMojibake: true } : {}),
      personal: { render: !flags.noRender, textColumn: flags.textColumn ?? null, fromColumn: flags.fromColumn ?? null, maxParts: flags.maxParts ?? null },
    };
  }
  let country: CountryCode | undefined;
  if (shape.defaultCountry !== null) {
    country = checkCountry(shape.defaultCountry, '--default-country');
  }
  const checker = createNumberChecker(country, { allowUnlisted: shape.allowUnlisted === true });
  let exclude: ExcludeList | undefined;
  const optOuts: OptOutSource[] = [];
  let excludedAfterStart: NumberSet | undefined;
  if (shape.exclude !== null) {
    // A resume reads the list its run started with, by the path the journal keeps: one moved or
    // deleted since is said as such, not as a path the user mistyped.
    if (previous !== undefined && !existsSync(shape.exclude.path)) {
      throw new UsageError(`--resume: the exclude file ${shape.exclude.path} that run ${previous.header.runId} started with is gone`, {
        hint: 'Put it back at that path, unchanged, and resume again; or start a new run with --restart.',
      });
    }
    exclude = await loadExcludes(shape.exclude.path, checker, { label: flags.exclude ?? shape.exclude.path, column: shape.exclude.column });
    const source: OptOutSource = { id: 'exclude', name: `the --exclude list ${shape.exclude.path}`, set: exclude.set };
    optOuts.push(source);
    if (previous !== undefined && exclude.hash !== shape.exclude.hash) {
      // The batches are rebuilt from the list as it was; numbers added since are left out of those not sent yet.
      const since = sinceStart(journalPath, source, previous.header.runId);
      if (since === undefined) {
        throw new UsageError(`--resume: the exclude file ${shape.exclude.path} changed since run ${previous.header.runId} started`, {
          hint: 'That run keeps no copy of the list as it started (an earlier msgr started it), so the batches cannot be rebuilt: restore the file, or start a new run with --restart.',
        });
      }
      exclude = { ...exclude, set: since.start, numbers: since.start.size };
      excludedAfterStart = since.added;
      if (since.added.size > 0) ui.info(`${since.added.size} number${since.added.size === 1 ? '' : 's'} went on ${source.name} since run ${previous.header.runId} started: left out of the batches not sent yet`);
    }
    if (previous === undefined) shape = { ...shape, exclude: { ...shape.exclude, hash: exclude.hash } };
  }
  return { message, shape, country, checker, exclude, optOuts, excludedAfterStart };
}

/**
 * The shape with the format and columns the preflight settled on, so a resume uses the same
 * columns whatever the header detection would say.
 */
export function settledShape(shape: RunShape, format: CsvFormat, pre: PreflightResult): RunShape {
  return {
    ...shape,
    encoding: format.encoding,
    delimiter: format.delimiter,
    msisdnColumn: pre.columns.msisdnName,
    varColumns: pre.columns.vars.map((i) => pre.columns.header[i] ?? ''),
    metaColumns: pre.columns.meta.map((i) => pre.columns.header[i] ?? ''),
  };
}
