// What a bulk run sends and how it cuts the file into batches (the journal header's message and
// shape): from the campaign for a new run, exactly as journaled for a resumed one. Also the number
// checker and the exclude list those imply.
import { existsSync } from 'node:fs';
import type { CountryCode } from 'libphonenumber-js/max';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { checkCountry } from '../../message/numbers.js';
import type { Ui } from '../../output/ui.js';
import { describeSource } from '../../settings/resolve.js';
import { loadExcludes, type ExcludeList } from '../input/exclude.js';
import type { NumberSet } from '../input/number-set.js';
import { sinceStart, type OptOutSource } from '../send/opt-outs.js';
import type { RunShape } from '../journal/records.js';
import { buildMessage } from '../compose/message.js';
import { createNumberChecker, type NumberChecker } from '../input/number-check.js';
import type { PreflightResult } from '../preflight/range.js';
import type { CsvFormat } from '../input/csv.js';
import { checkResume } from './resume-checks.js';
import { DEFAULT_BATCH_SIZE, type Campaign } from '../campaign.js';
import type { Run } from './open.js';
import { FLAG } from '../flag-names.js';

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

/**
 * What the run sends: a resumed run exactly what its journal says (the command's flags checked
 * against it), a new run what the campaign says.
 */
export async function planRun(ctx: Context, ui: Ui, campaign: Campaign, run: Run): Promise<RunPlan> {
  let message: Record<string, unknown>;
  let shape: RunShape;
  const previous = run.kind === 'resume' ? run.previous : undefined;
  if (previous !== undefined) {
    message = previous.header.message;
    shape = previous.header.shape;
    checkResume(ctx, ui, campaign, previous.header);
  } else {
    message = await buildMessage(ctx, campaign);
    const { columns, format, rows, exclude } = campaign.input;
    const m = campaign.message;
    const settings = campaign.where.settings;
    shape = {
      batchSize: campaign.pace.batchSize ?? DEFAULT_BATCH_SIZE,
      encoding: format.encoding ?? '',
      delimiter: format.delimiter ?? '',
      msisdnColumn: columns.msisdn ?? '',
      varColumns: columns.vars ?? [],
      metaColumns: columns.meta ?? [],
      // Flag > MSGR_DEFAULT_COUNTRY > profile, checked (UK → "did you mean GB?") and journaled.
      defaultCountry: settings.defaultCountry.value !== undefined ? checkCountry(settings.defaultCountry.value, describeSource(settings.defaultCountry)) : null,
      allowDuplicates: rows.allowDuplicates,
      skipInvalid: rows.skipInvalid,
      exclude: exclude !== undefined ? { path: exclude.path, hash: '', ...(exclude.column !== undefined ? { column: exclude.column } : {}) } : null,
      ...(!columns.headerRow ? { noHeader: true } : {}),
      ...(rows.firstPerNumber ? { firstPerNumber: true } : {}),
      ...(rows.allowUnlisted ? { allowUnlisted: true } : {}),
      ...(rows.fixMojibake ? { fixMojibake: true } : {}),
      personal: { render: m.render, textColumn: m.textColumn ?? null, fromColumn: m.fromColumn ?? null, maxParts: m.maxParts ?? null },
    };
  }
  let country: CountryCode | undefined;
  if (shape.defaultCountry !== null) {
    country = checkCountry(shape.defaultCountry, FLAG.defaultCountry);
  }
  const checker = createNumberChecker(country, { allowUnlisted: shape.allowUnlisted === true });
  let exclude: ExcludeList | undefined;
  const optOuts: OptOutSource[] = [];
  let excludedAfterStart: NumberSet | undefined;
  if (shape.exclude !== null) {
    // A resume reads the list its run started with, by the path the journal keeps: one moved or
    // deleted since is said as such, not as a path the user mistyped.
    if (previous !== undefined && !existsSync(shape.exclude.path)) {
      throw new UsageError(`${FLAG.resume}: the exclude file ${shape.exclude.path} that run ${previous.header.runId} started with is gone`, {
        hint: `Put it back at that path, unchanged, and resume again; or start a new run with ${FLAG.restart}.`,
      });
    }
    // The list is read with the run's country (docs/campaigns.md: "Numbers not to message"); a run
    // started without one takes the country this command has, for the list alone: a national
    // number added to it while the run was paused (a STOP reply as the CRM writes it) is read, not
    // refused with a hint the resume could not follow.
    const given = campaign.where.settings.defaultCountry;
    const listChecker = previous !== undefined && country === undefined && given.value !== undefined ? createNumberChecker(checkCountry(given.value, describeSource(given)), { allowUnlisted: shape.allowUnlisted === true }) : checker;
    exclude = await loadExcludes(shape.exclude.path, listChecker, { label: campaign.input.exclude?.given ?? shape.exclude.path, column: shape.exclude.column });
    const source: OptOutSource = { id: 'exclude', name: `the ${FLAG.exclude} list ${shape.exclude.path}`, set: exclude.set };
    optOuts.push(source);
    if (previous !== undefined && exclude.hash !== shape.exclude.hash) {
      // The batches are rebuilt from the list as it was; numbers added since are left out of those not sent yet.
      const since = sinceStart(run.journalPath, source, previous.header.runId);
      if (since === undefined) {
        throw new UsageError(`${FLAG.resume}: the exclude file ${shape.exclude.path} changed since run ${previous.header.runId} started`, {
          hint: `That run keeps no copy of the list as it started (an earlier msgr started it), so the batches cannot be rebuilt: restore the file, or start a new run with ${FLAG.restart}.`,
        });
      }
      exclude = { ...exclude, set: since.start, numbers: since.start.size };
      excludedAfterStart = since.added;
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
