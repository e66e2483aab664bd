// What a bulk run sends and how it cuts the file into batches (the journal header's message and
// shape): from the campaign for a new run, exactly as journaled for a resumed one. Also the number
// checker and the numbers not to message those imply: the --exclude list and the account's opt-out
// store (docs/optouts.md: "Sending"), each as the run started, and what went on them since.
import { isScheduled, scheduleRecord } from '../../schedule/index.js';
import { existsSync } from 'node:fs';
import type { CountryCode } from 'libphonenumber-js/max';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { checkCountry } from '../../message/numbers.js';
import type { Ui } from '../../output/ui.js';
import { describeSource } from '../../settings/resolve.js';
import { LEAVE_OUT, LeaveOutRule, listAtStart, loadExcludes, type ExcludeList, type ListAtStart } from '../input/exclude.js';
import { NumberSet } from '../input/number-set.js';
import { addedSinceStart, optedOutError, optedOutRows, sinceStart, snapshotPath, STORE_SOURCE, StoreAtStart, storeAddedSince, storeCopy, type AddedSinceStart, type OptOutSource } from '../send-pass/opt-outs.js';
import type { SpoolSource } from '../preflight/spool.js';
import { listingCostsLess, openOptOuts, optOutAccount, type OptOuts } from '../../optouts/store.js';
import { stateDir } from '../../files/state-dir.js';
import { formatCount } from '../../output/count.js';
import type { RunShape } from '../journal/records.js';
import { buildMessage } from '../compose/base-request.js';
import type { MessageDefinition } from '../compose/definition.js';
import { createNumberChecker, type NumberChecker } from '../input/number-check.js';
import type { PreflightResult } from '../preflight/range.js';
import type { CsvFormat } from '../../csv/reader.js';
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
  /** The --exclude list; on a resume, its numbers as the run started (bulk/send-pass/opt-outs.ts). */
  readonly exclude: ExcludeList | undefined;
  /** The lists of numbers not to message: what a new run keeps of each beside its journal. */
  readonly optOuts: readonly OptOutSource[];
  /** The account's opt-out store, and what the run does with it. */
  readonly store: PlannedStore;
  /**
   * What the preflight leaves out: the --exclude list's and the store's numbers as the run
   * started, each valued with why (bulk/input/exclude.ts LeaveOutRule).
   */
  readonly leaveOut: LeaveOutRule;
  /**
   * On a resume: numbers that went on a list since the run started, as known before its preflight
   * (the --exclude list's); those of the store are found among its rows after it (addedSinceTheStart).
   */
  readonly added: ReadonlyArray<{ readonly source: OptOutSource; readonly added: NumberSet }>;
  /** Numbers that went on the --exclude list while a resumed run was paused. */
  readonly excludedAfterStart: NumberSet | undefined;
}

/** What the run sends, as earlier runs are compared with it ("the same message"). */
export function definitionOf(plan: Pick<RunPlan, 'message' | 'shape'>): MessageDefinition {
  return { message: plan.message, personal: plan.shape.personal };
}

/** The opt-out store as a run uses it (docs/optouts.md: "Sending"). */
export interface PlannedStore {
  /** `left-out` (the default), or `included` (--include-opted-out --yes, or as the run started). */
  readonly mode: 'left-out' | 'included';
  /** The account whose store it is (undefined: none known, the store for every account alone). */
  readonly account: string | undefined;
  readonly files: readonly string[];
  /** Numbers in it now. */
  readonly numbers: number;
  /**
   * A new run: the store as it starts, asked row by row or listed (StoreAtStart): its numbers are
   * left out (unless `included`), and its possible opt-outs stop the run (either way). Undefined
   * for a resume.
   */
  readonly atStart: StoreAtStart | undefined;
  /**
   * A resume: the numbers its run left out at the start (its copy beside the journal), and the
   * store now, asked of the rows it could send for those opted out since (addedSinceTheStart).
   */
  readonly sinceStart: { readonly start: NumberSet; readonly now: StoreAtStart } | undefined;
  /** Why an opted-out row is left out: the opt-out in force when the run started. */
  readonly why: (number: string) => string;
  /** The store itself, to check a number (a sample's). */
  readonly optOuts: OptOuts | undefined;
  /**
   * Numbers with a possible opt-out no one has decided on (docs/optouts.md: "Possible opt-outs"):
   * a new run's preflight finds their rows and the run stops; a resume stops when a batch it
   * would send has one. Undefined when there are none (a resume).
   */
  readonly undecided: ListAtStart | undefined;
  /** Lets go of the store's indexes held open to be asked (asked again, they are opened again). */
  readonly release: () => void;
}

/**
 * What the run sends: a resumed run exactly what its journal says (the command's flags checked
 * against it), a new run what the campaign says.
 */
export async function planRun(ctx: Context, ui: Ui, campaign: Campaign, run: Run): Promise<RunPlan> {
  let message: Record<string, unknown>;
  let shape: RunShape;
  if (run.kind === 'resume') {
    message = run.resumed.header.message;
    shape = run.resumed.header.shape;
    checkResume(ctx, ui, campaign, run.resumed.header);
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
      ...(rows.mobileOnly ? { mobileOnly: true } : {}),
      ...(campaign.spend.priceFile !== undefined ? { prices: { file: campaign.spend.priceFile.path, ...(campaign.spend.maxCost !== undefined ? { maxCost: campaign.spend.maxCost.text } : {}) } } : {}),
      personal: { render: m.render, textColumn: m.textColumn ?? null, fromColumn: m.fromColumn ?? null, maxParts: m.maxParts ?? null },
      // Send windows and deadlines, kept so a resume keeps them (docs/send-windows.md).
      ...(isScheduled(campaign.when.given.schedule) ? { schedule: scheduleRecord(campaign.when.given.schedule) } : {}),
    };
  }
  let country: CountryCode | undefined;
  if (shape.defaultCountry !== null) {
    country = checkCountry(shape.defaultCountry, FLAG.defaultCountry);
  }
  const checker = createNumberChecker(country, { allowUnlisted: shape.allowUnlisted === true });
  let exclude: ExcludeList | undefined;
  const optOuts: OptOutSource[] = [];
  const added: Array<{ source: OptOutSource; added: NumberSet }> = [];
  if (shape.exclude !== null) {
    // A resume reads the list its run started with, by the path the journal keeps: one moved or
    // deleted since is said as such, not as a path the user mistyped.
    if (run.kind === 'resume' && !existsSync(shape.exclude.path)) {
      throw new UsageError(`${FLAG.resume}: the exclude file ${shape.exclude.path} that run ${run.resumed.header.runId} started with is gone`, {
        hint: `Put it back at that path, unchanged, and resume again; or start a new run with ${FLAG.restart}.`,
      });
    }
    // The list is read with the run's country (docs/reruns.md: "Numbers not to message"); a run
    // started without one takes the country this command has, for the list alone: a national
    // number added to it while the run was paused (a STOP reply as the CRM writes it) is read, not
    // refused with a hint the resume could not follow.
    const given = campaign.where.settings.defaultCountry;
    const listChecker = run.kind === 'resume' && country === undefined && given.value !== undefined ? createNumberChecker(checkCountry(given.value, describeSource(given)), { allowUnlisted: shape.allowUnlisted === true }) : checker;
    exclude = await loadExcludes(shape.exclude.path, listChecker, { label: campaign.input.exclude?.given ?? shape.exclude.path, column: shape.exclude.column });
    const listed = exclude.set;
    const source: OptOutSource = { id: 'exclude', name: `the ${FLAG.exclude} list ${shape.exclude.path}`, leaves: LEAVE_OUT.excluded, removals: 'refused', atStart: () => Promise.resolve(listed) };
    optOuts.push(source);
    if (run.kind === 'resume' && exclude.hash !== shape.exclude.hash) {
      // The batches are rebuilt from the list as it was; numbers added since are left out of those not sent yet.
      const since = sinceStart(run.journalPath, source, exclude.set, run.resumed.header.runId);
      if (since === undefined) {
        throw new UsageError(`${FLAG.resume}: the exclude file ${shape.exclude.path} changed since run ${run.resumed.header.runId} started`, {
          hint: `That run keeps no copy of the list as it started (an earlier msgr started it), so the batches cannot be rebuilt: restore the file, or start a new run with ${FLAG.restart}.`,
        });
      }
      exclude = { ...exclude, set: since.start, numbers: since.start.size };
      added.push({ source, added: since.added });
    }
    if (run.kind !== 'resume') shape = { ...shape, exclude: { ...shape.exclude, hash: exclude.hash } };
  }
  const store = planStore(ctx, ui, campaign, run, message, optOuts, added);
  return {
    message,
    shape,
    country,
    checker,
    exclude,
    optOuts,
    store,
    leaveOut: leaveOutOf(exclude?.set, store),
    added,
    // Said by the resume with what it means for the rows (bulk/campaign-door.ts).
    excludedAfterStart: added.find((a) => a.source.id === 'exclude')?.added,
  };
}

/**
 * What the preflight leaves out (LeaveOutRule): the --exclude list as the run started; a new run's
 * store as it starts (asked row by row, or listed for worker threads) and its possible opt-outs
 * not decided yet; a resume's copy of the store as its run started. A resume rebuilds its batches
 * from the lists as they were: a possible opt-out since is found in the batches still to send
 * instead (bulk/campaign-door.ts).
 */
function leaveOutOf(exclude: NumberSet | undefined, store: PlannedStore): LeaveOutRule {
  const start = store.atStart;
  if (start !== undefined) {
    // An empty store leaves nothing out (nor one the run sends to); its possible opt-outs still stop the run.
    return new LeaveOutRule(exclude, store.mode === 'left-out' && store.numbers > 0 ? start.optedOut : undefined, start.undecided, () => start.release());
  }
  const since = store.sinceStart?.start;
  return new LeaveOutRule(exclude, since !== undefined && since.size > 0 ? listAtStart(since) : undefined);
}

/**
 * The account's opt-out store, as the run uses it: a new run leaves its numbers out unless
 * --include-opted-out (the numbers of its rows the store had are kept beside the journal, `optOuts`
 * gets the source); a resume does what the run started with, and leaves out of the batches not
 * sent yet the numbers of its rows opted out since (addedSinceTheStart). A run of an msgr that did
 * not read the store: its batches are as they were, and every number of the store is left out of
 * those not sent yet (`added`).
 */
function planStore(ctx: Context, ui: Ui, campaign: Campaign, run: Run, message: Record<string, unknown>, optOuts: OptOutSource[], added: Array<{ source: OptOutSource; added: NumberSet }>): PlannedStore {
  const sandbox = (run.kind === 'resume' ? run.resumed.header.target?.sandbox : undefined) ?? campaign.where.sandbox;
  const account = optOutAccount(message.accountReference, sandbox);
  const mode = run.kind === 'resume' ? (run.resumed.header.optOuts?.store ?? 'left-out') : campaign.input.includeOptedOut ? 'included' : 'left-out';
  const all = openOptOuts(stateDir(ctx.env, ctx.cwd), account, ctx);
  const startedAt = run.kind === 'resume' ? new Date(run.resumed.header.createdAt) : ctx.now();
  const planned = { mode, account, files: all.files, numbers: all.size, why: (n: string) => optedOutError(all, n, startedAt), optOuts: all, sinceStart: undefined } as const;
  if (run.kind !== 'resume') {
    // Asked row by row as the preflight reads them (bulk/input/exclude.ts LeaveOutRule).
    const atStart = new StoreAtStart(all);
    // An empty store needs no copy: the journal's header says it had none (RunHeader.optOuts).
    // Else the numbers of the file's rows it had, even none: a resume finds the copy it expects.
    if (mode === 'left-out' && planned.numbers > 0) optOuts.push({ ...STORE_SOURCE, atStart: (spool) => optedOutRows(spool, atStart.optedOut) });
    return { ...planned, atStart, undecided: atStart.undecided, release: () => atStart.release() };
  }
  // A resume rebuilds its batches from the lists as they were: a possible opt-out since is found
  // in the batches still to send instead (bulk/campaign-door.ts), the store asked of their numbers.
  const now = new StoreAtStart(all);
  const resumed = { ...planned, atStart: undefined, undecided: all.undecidedCount > 0 ? now.undecided : undefined, release: () => now.release() };
  if (mode === 'included') {
    if (campaign.input.includeOptedOut !== true) ui.info(`run ${run.resumed.header.runId} was started with ${FLAG.includeOptedOut}: this resume sends to numbers in the opt-out store too, as the run started`);
    return resumed;
  }
  if (campaign.input.includeOptedOut) {
    // Its batches were made without the store's numbers: a resume cannot put them back in.
    throw new UsageError(`${FLAG.includeOptedOut}: run ${run.resumed.header.runId} was started leaving out the numbers in the opt-out store, and a resume sends what its run started with; nothing was sent`, {
      hint: `Resume without ${FLAG.includeOptedOut}, or start a new run that sends to them with ${FLAG.restart} ${FLAG.includeOptedOut} --yes.`,
    });
  }
  const { header } = run.resumed;
  const runId = header.runId;
  if (header.optOuts === undefined) {
    // Started by an msgr that did not read the store: its batches are rebuilt as they were.
    const whole = now.optedOut.listed();
    added.push({ source: { ...STORE_SOURCE, atStart: () => Promise.resolve(whole) }, added: whole });
    if (whole.size > 0) ui.info(`run ${runId} was started by an msgr that did not read the opt-out store: its ${formatCount(whole.size)} number${whole.size === 1 ? ' is' : 's are'} left out of the batches not sent yet`);
    return resumed;
  }
  // The copy holds the numbers of the file's rows the store had as the run started (or, kept by
  // an earlier msgr, the whole store then: the same rows are left out of the same file).
  // A copy changed since it was kept (cut short, edited) may lack a number the run left out: refused as one gone.
  const start = storeCopy(run.journalPath, header.optOuts);
  if (typeof start === 'string') {
    throw new UsageError(`${FLAG.resume}: the copy of the opt-out store that run ${runId} started with (${snapshotPath(run.journalPath, STORE_SOURCE)}) ${start === 'gone' ? 'is gone' : 'was changed since the run kept it'}, so its batches cannot be rebuilt; nothing was sent`, {
      hint: `Restore that file from a backup and resume again, or start a new run with ${FLAG.restart} (it leaves out the store's numbers as they are then, and what this run accepted).`,
    });
  }
  return { ...resumed, sinceStart: { start, now } };
}

/**
 * A resume's numbers that went on a list since its run started, each valued with why (`all`): the
 * --exclude list's (planRun), and the store's among the rows its preflight found to send (`spool`,
 * of `rows` rows: the store is asked for each of their numbers, or listed when that costs less),
 * which are also `store`. Undefined when there are none.
 */
export async function addedSinceTheStart(plan: RunPlan, spool: SpoolSource | undefined, rows: number): Promise<{ readonly all: AddedSinceStart | undefined; readonly store: NumberSet | undefined }> {
  const added = [...plan.added];
  const since = plan.store.sinceStart;
  if (since !== undefined) {
    let store: NumberSet;
    if (spool !== undefined) {
      if (listingCostsLess(since.now.optedOut.numbers, rows)) since.now.optedOut.listed();
      try {
        store = await storeAddedSince(spool, since.start, since.now.optedOut);
      } finally {
        since.now.release();
      }
    } else {
      // No verdicts to read (nothing is sent): the store now against its copy.
      store = new NumberSet(1024);
      since.now.optedOut.listed().forEach((key) => void (since.start.has(key) || store.add(key)));
    }
    added.push({ source: { ...STORE_SOURCE, atStart: () => Promise.resolve(since.start) }, added: store });
    return { all: addedSinceStart(added, plan.store.optOuts), store };
  }
  return { all: addedSinceStart(added, plan.store.optOuts), store: undefined };
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
