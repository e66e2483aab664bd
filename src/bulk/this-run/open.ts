// src/bulk/this-run/: this run, as opening it decides: which run it is, what it reads, what it
// sends and where. open.ts (this file) decides the kind (new, resumed, restarted; its lock and
// journal); input-file.ts the file it reads; run-plan.ts what it sends; where.ts where it sends;
// resume-checks.ts what a resume must agree with; unfinished.ts the refusals beside another run
// of the file (unfinished, or another msgr's: sending now, stopped); resume-command.ts the command
// that continues a run. It imports every folder below it in the order (docs/design.md) but none
// above: the earlier runs' numbers are earlier/'s.
//
// Where a bulk run lives and which run it is: the journal's path and lock, a new run against an
// unfinished one of the same file or piped data (--resume, --restart, a journal kept elsewhere),
// the journal opened (docs/files.md: "Nothing lost, nothing sent twice"). The room a stopped run
// needs: bulk/journal/reserve.ts; the input read and known again: bulk/this-run/input-file.ts; the checks
// that a resumed run sends exactly what it started with: bulk/this-run/resume-checks.ts; the journal's
// format: bulk/journal/records.ts.
import { closeSync, existsSync, openSync, readdirSync, readSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Context } from '../../context.js';
import { fileProblem, UsageError } from '../../errors.js';
import type { Ui } from '../../output/ui.js';
import { Journal } from '../journal/writer.js';
import { isAnswered, type JournaledTarget, type OnceRecord, type RunHeader, type RunShape, type SkipSentSource } from '../journal/records.js';
import { JournalError, loadJournal, readHeader, type LoadedJournal } from '../journal/load.js';
import { heartbeatStopped, lockHolder, tryLock, type LockOwner } from '../../files/lock.js';
import { keyedIdempotency, keyedJournal } from '../../once/keys.js';
import { sameFile } from '../../files/same-file.js';
import { journalsElsewhere, pointedJournals, pointerPath, unreadableWhy, writePointer } from '../history/catalogue.js';
import { journalState } from '../history/run-index.js';
import type { PreflightResult } from '../preflight/range.js';
import { resumeBlocked } from './resume-checks.js';
import { refusalError, restartDoes, runningError, tookOverLine, unfinishedError, unfinishedRefusal, type Refusal } from './unfinished.js';
import { realFile, runDirFor, stdinRunDir } from '../history/state-folder.js';
import { shellQuote } from '../../output/shell.js';
import { buildResumeCommand } from './resume-command.js';
import { ensureParent, stateWriteError } from '../../files/dirs.js';
import { newRunId } from '../journal/run-keys.js';
import type { InputStat } from '../input/identity.js';
import { runsRoot, stateDir } from '../../files/state-dir.js';
import { journalOf, type Campaign } from '../campaign.js';
import { FLAG } from '../flag-names.js';

/** Where a run's journal is, and the file it reads: what every run knows. */
interface RunAt {
  readonly journalPath: string;
  /** The input file's real path (realFile); undefined for stdin. */
  readonly fileAbs: string | undefined;
  /**
   * The file as the resume command names it: as given, unless that goes through a symlink, which
   * may later point at another file (cron's `today.csv`); then its real path.
   */
  readonly fileArg: string | undefined;
}

/** A journal moved aside (an abandoned run's, or the file's last finished run's, kept). */
export interface Moved {
  readonly from: string;
  readonly to: string;
}

/**
 * Which run this is, decided here once from what the command asks (bulk/campaign.ts, earlier) and
 * what is on disk, and handed down: a new run, a resume of the unfinished one, or a restart that
 * abandoned it. The engine switches on `kind`; no one else tells a resume by its journal.
 */
export type Run = NewRun | RestartRun | ResumeRun;

export interface NewRun extends RunAt {
  readonly kind: 'new';
  readonly runId: string;
  /** The file's last run, finished, kept aside (its outcomes stay for msgr runs). */
  readonly moved: Moved | undefined;
  /** A campaign key's new run: what its journal records of the key. */
  readonly once: OnceRecord | undefined;
  /**
   * A dry run, preview or sample beside an unfinished run of the file: that run, whether it is
   * sending now, and the refusal the same command without --dry-run or --preview would meet, which
   * they end with after showing the preflight (docs/reruns.md: "Running a file again").
   */
  readonly unfinished: { readonly header: RunHeader; readonly sending: boolean; readonly refusal?: Refusal | undefined } | undefined;
}

export interface RestartRun extends RunAt {
  readonly kind: 'restart';
  readonly runId: string;
  /** The unfinished run abandoned, and where its journal now is. */
  readonly abandoned: { readonly journal: string; readonly header: RunHeader };
  /** Where its journal went; undefined for a dry run, preview or sample, which abandon nothing. */
  readonly moved: Moved | undefined;
  readonly once: OnceRecord | undefined;
}

export interface ResumeRun extends RunAt {
  readonly kind: 'resume';
  readonly runId: string;
  /** The journal being resumed, as loaded: its header, and every batch's state. */
  readonly resumed: LoadedJournal;
}

/**
 * What opening finds: a run to go on with, or nothing to do: the run the command names finished
 * (`done`), or a campaign key's run another process is sending now (`running-now`).
 */
export type Opened = Run | (RunAt & { readonly kind: 'done'; readonly runId: string; readonly finished: LoadedJournal }) | (RunAt & { readonly kind: 'running-now'; readonly runId: string; readonly owner: LockOwner; readonly header: RunHeader | undefined });

/**
 * The run's journal path and id, its lock (not for a dry run), and the journal of the run it
 * resumes; refuses a new run over an unfinished one unless --restart archives it.
 */
export async function openRunState(ctx: Context, ui: Ui, campaign: Campaign, defer: (cleanup: () => void) => void): Promise<Opened> {
  const state = stateDir(ctx.env, ctx.cwd);
  const { sandbox } = campaign.where;
  const { file } = campaign.input;
  const { request, journal: journalGiven } = campaign.earlier;
  // Only a send of the campaign takes the lock and moves journals: a dry run, a preview and a
  // sample are no run of it.
  const writes = journalOf(campaign.purpose) === 'write';
  const key = campaign.earlier.once !== undefined ? { key: campaign.earlier.once, place: campaign.where.place } : undefined;
  const given = file !== undefined && file !== '-' ? resolve(ctx.cwd, file) : undefined;
  const fileAbs = given !== undefined ? realFile(given) : undefined;
  const fileArg = given !== undefined && given !== fileAbs ? fileAbs : file;
  // A keyed run is known by its key (docs/reruns.md: "Campaign keys"): a command with the key
  // continues the key's unfinished run, or finds it done, whatever else it says.
  const keyed = key !== undefined ? keyedJournal(state, key.place, key.key) : undefined;
  const resume = request === 'resume' || (keyed !== undefined && request !== 'restart' && writes && existsSync(keyed));
  let journalPath: string;
  let runId: string;
  if (resume) {
    if (keyed !== undefined) journalPath = keyed;
    else if (journalGiven !== undefined) journalPath = resolve(ctx.cwd, journalGiven);
    else if (fileAbs !== undefined) journalPath = join(runDirFor(state, fileAbs, sandbox), 'journal.jsonl');
    else throw new UsageError(`${FLAG.resume} of a run that read stdin needs its ${FLAG.journal} PATH`, { hint: 'The path was printed when the run started, and in its summary; `msgr runs list` lists the runs (those that read stdin as stdin), and `msgr runs show RUN` prints the command that continues one.' });
    if (!existsSync(journalPath) && key !== undefined) {
      throw new UsageError(`nothing to resume: no run under ${FLAG.once} ${key.key} for account ${key.place.account ?? '(none)'}`, { hint: `Run the command without ${FLAG.resume} to start it: a command with the key continues its run while it is unfinished.` });
    }
    if (!existsSync(journalPath)) {
      // The file's run may keep its journal elsewhere (--journal): it is named, not guessed at.
      const away = fileAbs !== undefined && journalGiven === undefined ? await unfinishedElsewhere(ctx, state, fileAbs, sandbox, undefined, given) : undefined;
      if (away !== undefined && fileAbs !== undefined) {
        throw new UsageError(`nothing to resume in ${journalPath}: the unfinished run ${away.header.runId} of this file (started ${away.header.createdAt}) keeps its journal at ${away.journal}`, {
          hint: `Continue it with: ${continueElsewhere(campaign, fileArg, fileAbs, away.journal)}`,
        });
      }
      // The file's last run kept its journal elsewhere (a campaign key's run, --journal) and
      // finished: nothing to do, as for a finished run in the file's own folder (a cron line's
      // --resume after the run it continues ended).
      const last = fileAbs !== undefined && journalGiven === undefined ? journalsElsewhere(state, runDirFor(state, fileAbs, sandbox), sandbox)[0] : undefined;
      const lastState = last !== undefined ? await journalState(state, sandbox, last.journal) : undefined;
      if (last !== undefined && lastState?.finished === true) journalPath = last.journal;
    }
    if (!existsSync(journalPath)) {
      // A sandbox trial and the real campaign keep apart: say when the other one exists.
      const other = fileAbs !== undefined && journalGiven === undefined ? join(runDirFor(state, fileAbs, !sandbox), 'journal.jsonl') : undefined;
      const otherHint = other !== undefined && existsSync(other) ? ` There is a ${sandbox ? 'real' : 'sandbox'} run of this file (${other}): an unfinished one resumes ${sandbox ? 'without' : 'with'} ${FLAG.sandbox}.` : '';
      throw new UsageError(`nothing to resume: there is no ${sandbox ? 'sandbox ' : ''}journal at ${journalPath}`, { hint: `Run the command without ${FLAG.resume} to start sending.${otherHint}` });
    }
    runId = '';
  } else {
    runId = newRunId(ctx.now());
    if (keyed !== undefined) journalPath = keyed;
    else if (journalGiven !== undefined) journalPath = resolve(ctx.cwd, journalGiven);
    else if (fileAbs !== undefined) journalPath = join(runDirFor(state, fileAbs, sandbox), 'journal.jsonl');
    else journalPath = join(stdinRunDir(state, runId, sandbox), 'journal.jsonl');
  }
  // A folder is no journal: said as such, not as a file that is not one (nor read as one).
  if (journalGiven !== undefined && isFolder(journalPath)) {
    throw new UsageError(`${FLAG.journal}: ${journalGiven} is a folder; ${FLAG.journal} takes the journal's file path`, {
      hint: request === 'resume' ? 'Give the journal path printed by the run you want to resume.' : `Give a file path, e.g. ${shellQuote(join(journalGiven, 'journal.jsonl'))}, or leave ${FLAG.journal} out: msgr keeps it in its state folder.`,
    });
  }
  // The journal is written over: never the CSV it records.
  if (journalGiven !== undefined && fileAbs !== undefined && sameFile(journalPath, fileAbs)) {
    throw new UsageError(`${FLAG.journal}: ${journalGiven} is the CSV file being sent; writing the journal there would overwrite it`, { hint: `Give the journal a path of its own, or leave ${FLAG.journal} out: msgr keeps it in its state folder.` });
  }
  // A new run writes its journal over the file there: an earlier run's journal is kept aside
  // (below), but anything else (the --exclude list, the --text-file, a report) would be lost.
  if (journalGiven !== undefined && request !== 'resume' && !journalOrNothing(journalPath)) {
    throw new UsageError(`${FLAG.journal}: ${journalGiven} is a file that is not a msgr journal; a new run would write its journal over it`, { hint: `Give the journal a path of its own (a new file), or leave ${FLAG.journal} out: msgr keeps it in its state folder.` });
  }

  if (writes) {
    let lock;
    const lockPath = `${journalPath}.lock`;
    try {
      const folder = dirname(journalPath);
      const made = !existsSync(folder);
      ensureParent(journalPath);
      // A run that stops before its journal is written (the preflight, the confirmation) leaves
      // no empty folder. Deferred before the lock, so it runs after the lock is released.
      if (made) defer(() => removeIfEmpty(folder));
      lock = tryLock(lockPath, `msgr send-bulk ${file ?? ''}${key !== undefined ? ` ${FLAG.once} ${shellQuote(key.key)}` : ''}${request === 'resume' ? ` ${FLAG.resume}` : ''}`.trim(), ctx);
    } catch (err) {
      throw stateWriteError(err, dirname(journalPath));
    }
    // The key's run is being sent by another process: it is that process's to finish (and report),
    // unless that process stopped (its heartbeat did: Ctrl-Z), which is said, not waited on quietly.
    if (!('release' in lock) && keyed !== undefined && !(lock.heldBy !== undefined && heartbeatStopped(lock.heldBy))) {
      return { kind: 'running-now', runId, journalPath, fileAbs, fileArg, owner: lock.heldBy ?? { pid: 0, host: '?', startedAt: '?', command: '' }, header: readHeader(journalPath) };
    }
    if (!('release' in lock)) throw runningError(lockPath, lock.heldBy);
    if (lock.tookOver !== undefined) ui.warn(tookOverLine(lock.tookOver));
    const held = lock;
    defer(() => held.release());
    ctx.onExit(() => held.release());
    // A keyed run is a run of its file too: a run of the file without the key knows of it.
    if (keyed !== undefined && !resume && fileAbs !== undefined) pointHere(ui, runDirFor(state, fileAbs, sandbox), journalPath, defer);
    else if (journalGiven !== undefined && fileAbs !== undefined) pointHere(ui, runDirFor(state, fileAbs, sandbox), journalPath, defer);
    // Stdin kept by --journal: where a later run of the same data piped in looks (checkStdinAgain).
    else if (journalGiven !== undefined && request !== 'resume') pointHere(ui, stdinRunDir(state, runId, sandbox), journalPath, defer);
  }

  // Another run of this file, unfinished or sending, counts as this file's run: the one in its own
  // run folder or one kept elsewhere (--journal). A new run beside it, with or without --journal
  // of its own, would send its rows again.
  let elsewhere: NewRun['unfinished'];
  if (!resume && fileAbs !== undefined) {
    const away = await unfinishedElsewhere(ctx, state, fileAbs, sandbox, journalPath, given, keyed !== undefined);
    if (away !== undefined) {
      const own = away.journal === join(runDirFor(state, fileAbs, sandbox), 'journal.jsonl');
      const awayKey = away.header.once?.key;
      const command = continueElsewhere(campaign, fileArg, fileAbs, own || awayKey !== undefined ? undefined : away.journal, awayKey);
      const holder = lockHolder(`${away.journal}.lock`, ctx);
      if (writes && holder !== undefined) throw runningError(`${away.journal}.lock`, holder);
      const blocked = resumeBlocked(ctx, away.header, fileAbs);
      const restart = `${awayKey !== undefined ? `${FLAG.once} ${shellQuote(awayKey)} ${FLAG.restart}` : `${FLAG.restart} ${FLAG.journal} ${shellQuote(away.journal)}`}${restartDoes(campaign.earlier.again, awayKey !== undefined)}`;
      const refusal = (): Refusal => {
        // Under a key of its own, this command can neither continue nor abandon a run without one.
        if (keyed !== undefined) {
          return {
            message: `an unfinished run of this file without ${FLAG.once} exists (run ${away.header.runId}, started ${away.header.createdAt}); its journal is ${away.journal}`,
            hint: blocked !== undefined ? `It cannot be continued (${blocked}): abandon it with msgr send-bulk ${shellQuote(fileArg ?? fileAbs)} ${FLAG.restart}${own ? '' : ` ${FLAG.journal} ${shellQuote(away.journal)}`} (a run without a key), or leave ${FLAG.once} out.` : `Finish it first with: ${command} (rows already accepted are not sent again); then run this command again.`,
          };
        }
        return {
          message: `an unfinished run of this file exists (run ${away.header.runId}, started ${away.header.createdAt}); its journal is ${own ? '' : 'kept at '}${away.journal}`,
          hint: blocked !== undefined ? `It cannot be continued (${blocked}): abandon it with ${restart}.` : `Continue it with: ${command} (rows already accepted are not sent again), or abandon it with ${restart}.`,
        };
      };
      if (writes) throw refusalError(refusal());
      // A dry run or preview ends with the refusal, after the preflight (a sample says how the campaign goes on).
      if (holder === undefined && campaign.purpose.kind !== 'sample') elsewhere = { header: away.header, sending: false, refusal: refusal() };
      else ui.info(`an unfinished run of this file exists (run ${away.header.runId}, started ${away.header.createdAt}), its journal ${own ? 'is' : 'kept at'} ${away.journal}: ${blocked !== undefined ? `it cannot be continued (${blocked}); the campaign starts over with ${FLAG.restart} ${FLAG.journal} ${shellQuote(away.journal)}` : `the campaign goes on with ${command}`}`);
    }
  }

  let previous: LoadedJournal | undefined;
  let abandoned: RestartRun['abandoned'] | undefined;
  let moved: Moved | undefined;
  let unfinished: NewRun['unfinished'];
  // A journal that could not be read was set aside by --restart: this run's keys are its own.
  let setAside = false;
  if (resume) {
    try {
      previous = await loadJournal(journalPath);
    } catch (err) {
      // A journal given by path that is none: a path mistyped, most likely.
      if (err instanceof JournalError && journalGiven !== undefined) throw new UsageError(`${FLAG.resume}: ${err.message}`, { hint: 'Give the journal path printed by the run you want to resume.' });
      throw unreadableJournalError(journalPath, err, { label: file ?? 'stdin', key: key?.key, restart: request === 'resume' ? `the campaign's command (with its message flags) and ${FLAG.restart}` : campaign.rerun.restart });
    }
    runId = previous.header.runId;
    // A keyed run goes on from any path with the same data (bulk/earlier/campaign-key.ts checks the data).
    if (keyed === undefined && fileAbs !== undefined && fileAbs !== previous.header.input.path && fileAbs !== realFile(previous.header.input.path) && !previous.header.input.stdin) {
      throw new UsageError(`${FLAG.resume}: the journal ${journalPath} belongs to ${previous.header.input.path}, not ${fileAbs}`);
    }
    // `--resume --journal PATH` alone: the file's run folder learns of the journal too.
    if (writes && fileAbs === undefined && journalGiven !== undefined && !previous.header.input.stdin) {
      pointHere(ui, runDirFor(state, realFile(previous.header.input.path), previous.header.target?.sandbox === true), journalPath, defer);
    }
    if (previous.badLines > 0) ui.warn(`the journal had ${previous.badLines} unreadable line${previous.badLines === 1 ? '' : 's'} (a write cut short); the batches they named count as in doubt`);
  } else if (writes && existsSync(journalPath)) {
    // A journal that cannot be read is never written over (docs/files.md: "A journal that cannot be read").
    const old = await loadJournal(journalPath).catch((err: unknown) => {
      if (request !== 'restart') throw unreadableJournalError(journalPath, err, { label: file ?? 'stdin', key: key?.key, restart: campaign.rerun.restart });
      return undefined;
    });
    if (old === undefined) {
      // --restart: kept aside, where `msgr runs list` still shows it, and put back if this run sends nothing.
      const aside = journalPath.replace(/\.jsonl$/, '') + `.unreadable-${ctx.now().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.jsonl`;
      moveJournal(journalPath, aside);
      putBackUnlessStarted(ctx, defer, journalPath, aside);
      moved = { from: journalPath, to: aside };
      setAside = true;
      ui.warn(`the journal ${journalPath}, which cannot be read, is kept as ${aside}; this run does not know whom that run messaged`);
    }
    if (old !== undefined && keyed !== undefined && key !== undefined && isFinished(old)) {
      throw new UsageError(`${FLAG.restart}: run ${old.header.runId} under ${FLAG.once} ${key.key} finished; there is nothing to restart`, {
        hint: 'A key names one campaign: a new campaign needs a key of its own.',
      });
    }
    if (old !== undefined && !isFinished(old)) {
      if (request !== 'restart') throw unfinishedError(ctx, old.header, fileAbs, journalPath, campaign.earlier.again);
      const archived = journalPath.replace(/\.jsonl$/, '') + `.${old.header.runId}.abandoned.jsonl`;
      moveJournal(journalPath, archived);
      putBackUnlessStarted(ctx, defer, journalPath, archived);
      moved = { from: journalPath, to: archived };
      // Said once this run's journal is written (bulk/stages/sending.ts): a refusal puts it back.
      abandoned = { journal: archived, header: old.header };
    } else if (old !== undefined) {
      // A finished run's journal holds its outcomes and message ids (msgr runs): kept, not replaced.
      const kept = journalPath.replace(/\.jsonl$/, '') + `.${old.header.runId}.jsonl`;
      moveJournal(journalPath, kept);
      putBackUnlessStarted(ctx, defer, journalPath, kept);
      moved = { from: journalPath, to: kept };
      ui.debug(`the last run of this file, ${old.header.runId}, is kept as ${kept}`);
    }
  } else if (!writes && existsSync(journalPath)) {
    // A dry run or preview says what the command would: it stops at a journal that cannot be read.
    const old = await loadJournal(journalPath).catch((err: unknown) => {
      if (request !== 'restart') throw unreadableJournalError(journalPath, err, { label: file ?? 'stdin', key: key?.key, restart: campaign.rerun.restart });
      return undefined;
    });
    if (old !== undefined && keyed !== undefined && isFinished(old)) {
      // The key's run is done: a dry run says so, as the command would.
      previous = old;
    } else if (old !== undefined && !isFinished(old) && request === 'restart') {
      // A dry run of --restart counts what the restart would leave out; it abandons nothing.
      abandoned = { journal: journalPath, header: old.header };
      ui.info(`${FLAG.restart} would abandon the unfinished run ${old.header.runId}; nothing is abandoned now`);
    } else if (old !== undefined && !isFinished(old)) {
      // The same command without --dry-run (or the sample's "send the campaign with") is refused.
      const holder = lockHolder(`${journalPath}.lock`, ctx);
      unfinished = { header: old.header, sending: holder !== undefined };
      if (holder !== undefined) ui.info(`run ${old.header.runId} of this file is sending now (msgr pid ${holder.pid} on ${holder.host}, since ${holder.startedAt})`);
      // A key's run: whether this command would continue it is campaign-door.ts's to say (bulk/earlier/campaign-key.ts).
      else if (key === undefined && campaign.purpose.kind !== 'sample') unfinished = { ...unfinished, refusal: unfinishedRefusal(ctx, old.header, fileAbs, journalPath, campaign.earlier.again) };
      else if (key === undefined) {
        const blocked = resumeBlocked(ctx, old.header, fileAbs);
        ui.info(`an unfinished run of this file exists (run ${old.header.runId}, started ${old.header.createdAt}): ${blocked !== undefined ? `it cannot be continued (${blocked}); the campaign starts over with ${FLAG.restart}` : `the campaign goes on with ${FLAG.resume}, or starts over with ${FLAG.restart}`}`);
      }
    }
  }
  const at = { journalPath, fileAbs, fileArg };
  if (previous !== undefined) return isFinished(previous) ? { kind: 'done', runId, ...at, finished: previous } : { kind: 'resume', runId, ...at, resumed: previous };
  const once = key !== undefined ? { key: key.key, idempotency: keyedIdempotency(key.place, key.key, abandoned !== undefined || setAside ? runId : undefined) } : undefined;
  if (abandoned !== undefined) return { kind: 'restart', runId, ...at, abandoned, moved, once };
  return { kind: 'new', runId, ...at, moved, once, unfinished: unfinished ?? elsewhere };
}

/**
 * The journal of the file's run (or of a campaign key's) that cannot be read: emptied, cut in its
 * header, not a journal. It may be the only record of whom that run messaged, so a new run of the
 * file stops (exit 2) and the journal is never written over; --restart keeps it aside and starts
 * anew (docs/files.md: "A journal that cannot be read").
 */
function unreadableJournalError(journal: string, err: unknown, o: { readonly label: string; readonly key: string | undefined; readonly restart: string }): UsageError {
  const why = unreadableWhy(err);
  const whose = o.key !== undefined ? `the run under ${FLAG.once} ${o.key}` : `the last run of ${o.label}`;
  return new UsageError(`the journal of ${whose}, ${journal}, cannot be read (${why}); it may be the only record of whom that run messaged, and it is not written over; nothing was sent`, {
    hint: `Keep the file. If you have a copy of it from before it was damaged, put it back and run the command again. To start anew all the same: ${o.restart} (the journal is kept aside as journal.unreadable-<time>.jsonl, never written over, and every row is sent, since msgr cannot tell whom that run reached; leave out numbers you know it reached with ${FLAG.exclude} FILE).`,
    cause: err,
  });
}

/**
 * The newest unfinished (or sending) run of the file other than the one whose journal is
 * `except`: the journal in its own run folder, then those the folder points to (--journal).
 * `given`: the file as given, made absolute; when it goes through a symlink, the run folder an
 * earlier msgr (which named run folders by that path, not the real one) left is looked in too.
 */
async function unfinishedElsewhere(ctx: Context, state: string, fileAbs: string, sandbox: boolean, except?: string, given?: string, keyed = false): Promise<{ readonly journal: string; readonly header: RunHeader } | undefined> {
  const runDir = runDirFor(state, fileAbs, sandbox);
  const folders = [runDir, ...(given !== undefined && given !== fileAbs ? [runDirFor(state, given, sandbox)] : [])];
  const candidates: Array<{ readonly journal: string; readonly header: RunHeader }> = [];
  for (const folder of folders) {
    const journal = join(folder, 'journal.jsonl');
    const header = journal !== except ? readHeader(journal) : undefined;
    if (header !== undefined) candidates.push({ journal, header });
  }
  candidates.push(...journalsElsewhere(state, runDir, sandbox).filter((a) => a.journal !== except));
  for (const away of candidates) {
    // A keyed run's identity is its key: it does not block a run under another key, nor a run
    // without one once it cannot be continued (its file changed): bulk/earlier/of-file.ts counts
    // what it accepted. One that can still be continued is the file's run.
    if (away.header.once !== undefined && (keyed || resumeBlocked(ctx, away.header, fileAbs) !== undefined)) continue;
    // A run still writing its header is sending (its lock says so): unfinished all the same.
    if (lockHolder(`${away.journal}.lock`, ctx) !== undefined) return away;
    // A finished run's state from the runs' index: not every earlier run's journal read whole.
    const found = await journalState(state, sandbox, away.journal);
    if (found !== undefined && !found.finished) return away;
  }
  return undefined;
}

/** The command that resumes the file's run: `journal` undefined for the one in its own run folder. */
function continueElsewhere(campaign: Pick<Campaign, 'resumeWith'>, fileArg: string | undefined, fileAbs: string, journal: string | undefined, once?: string): string {
  return buildResumeCommand({ ...campaign.resumeWith, file: fileArg, journal, once }, fileAbs, false, journal ?? '');
}

/**
 * Leaves the journal's path in the file's own run folder, where a run without --journal looks;
 * removed again when the run stops before writing its journal. Without it the run still runs
 * (--journal is also the way round a state folder that cannot be written), said in a warning.
 */
function pointHere(ui: Ui, runDir: string, journal: string, defer: (cleanup: () => void) => void): void {
  const made = !existsSync(runDir);
  try {
    writePointer(runDir, journal);
  } catch (err) {
    ui.warn(`cannot leave the journal's path in ${runDir} (${fileProblem(err)}): a run of this file without ${FLAG.journal} will not know of this one`);
    return;
  }
  defer(() => {
    if (existsSync(journal)) return;
    rmSync(pointerPath(runDir, journal), { force: true });
    if (made) removeIfEmpty(runDir);
  });
}

/** Whether `path` is free for a journal: no file, an empty one, or a msgr journal. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function journalOrNothing(path: string): boolean {
  try {
    if (statSync(path).size === 0) return true;
  } catch {
    return true;
  }
  return readHeader(path) !== undefined;
}

function removeIfEmpty(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // Not empty (a journal, an earlier run's, stdin's copy): it stays.
  }
}

/**
 * A new run that ends before writing its journal (a usage error, the preflight, the confirmation,
 * a signal) sent nothing: the journal it moved aside is put back where it was, so an unfinished
 * run stays the file's unfinished run (a --restart after the fix still leaves out what it
 * accepted) and a finished one stays the file's last run. Registered after the lock, so it runs
 * while the lock is still held.
 */
function putBackUnlessStarted(ctx: Pick<Context, 'atQuit'>, defer: (cleanup: () => void) => void, journal: string, aside: string, newJournal = journal): void {
  const putBack = (): void => {
    if (!existsSync(newJournal) && !existsSync(journal) && existsSync(aside)) renameSync(aside, journal);
  };
  defer(putBack);
  ctx.atQuit(putBack);
}

function moveJournal(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    throw stateWriteError(err, dirname(from));
  }
}

export function isFinished(j: Pick<LoadedJournal, 'states'>): boolean {
  return j.states.every(isAnswered);
}

/**
 * Piped data an unfinished run read from stdin too (the same bytes) is that run again, as a file
 * is (docs/files.md: "Nothing lost, nothing sent twice"): refused, naming the command that continues it;
 * --restart abandons it. Other data is a new run. Called once stdin is copied to a file, by the
 * opening stage alone: the run it returns is the run, its kind final (`run` is what was found on
 * disk before the data was known).
 */
export async function checkStdinAgain(ctx: Context, ui: Ui, campaign: Campaign, run: Run, input: RunInput, defer: (cleanup: () => void) => void): Promise<Run> {
  if (!input.stdin || run.kind === 'resume') return run;
  const state = stateDir(ctx.env, ctx.cwd);
  const root = runsRoot(state, campaign.where.sandbox);
  let dirs: string[];
  try {
    dirs = readdirSync(root).filter((d) => d.startsWith('stdin-'));
  } catch {
    return run;
  }
  // Newest first: run ids start with their time. A stdin run kept by --journal leaves a pointer
  // in a folder of its own there (openRunState).
  const journals = dirs.sort().reverse().flatMap((d) => [join(root, d, 'journal.jsonl'), ...pointedJournals(join(root, d))]);
  for (const journal of journals) {
    const own = journal.startsWith(`${root}/`);
    if (journal === run.journalPath) continue;
    const header = readHeader(journal);
    if (header === undefined || !header.input.stdin || header.input.size !== input.identity.size || header.input.quickHash !== input.identity.quickHash) continue;
    // The quick hash reads the first and last MiB: the rest is compared with that run's copy. A
    // run whose copy is gone cannot be resumed, but what it accepted must not go out again.
    if (existsSync(header.input.path) && !sameBytes(header.input.path, input.path)) continue;
    const holder = lockHolder(`${journal}.lock`, ctx);
    const old = holder !== undefined ? undefined : await journalState(state, campaign.where.sandbox, journal);
    if (holder === undefined && (old === undefined || old.finished)) continue;
    const command = buildResumeCommand({ ...campaign.resumeWith, file: undefined, journal }, undefined, true, journal);
    const which = `run ${header.runId}, started ${header.createdAt}, read the same data from stdin`;
    if (journalOf(campaign.purpose) === 'none') {
      ui.info(`an unfinished run of this data exists (${which}): the campaign goes on with ${command}`);
      return run;
    }
    if (holder !== undefined) throw runningError(`${journal}.lock`, holder);
    if (old === undefined) continue;
    // A journal kept by --journal is the user's file: --restart renames it only when named, as
    // for a CSV file's run kept elsewhere (openRunState).
    if (campaign.earlier.request !== 'restart' || !own) {
      const restart = own ? FLAG.restart : `${FLAG.restart} ${FLAG.journal} ${shellQuote(journal)}`;
      throw new UsageError(`an unfinished run of this data exists (${which}); its journal is ${own ? '' : 'kept at '}${journal}`, {
        hint: `Continue it with: ${command} (rows already accepted are not sent again), or abandon it with ${restart}${restartDoes(campaign.earlier.again)}.`,
      });
    }
    const archived = journal.replace(/\.jsonl$/, '') + `.${header.runId}.abandoned.jsonl`;
    moveJournal(journal, archived);
    // This run's journal is in a folder of its own: until it is written, nothing was abandoned.
    putBackUnlessStarted(ctx, defer, journal, archived, run.journalPath);
    return { ...run, kind: 'restart', abandoned: { journal: archived, header }, moved: { from: journal, to: archived } };
  }
  return run;
}

/** Whether two files hold the same bytes. */
function sameBytes(a: string, b: string): boolean {
  let fa: number | undefined;
  let fb: number | undefined;
  try {
    fa = openSync(a, 'r');
    fb = openSync(b, 'r');
    const ba = Buffer.alloc(1024 * 1024);
    const bb = Buffer.alloc(1024 * 1024);
    for (let pos = 0; ; ) {
      const na = readSync(fa, ba, 0, ba.length, pos);
      const nb = readSync(fb, bb, 0, bb.length, pos);
      if (na !== nb || !ba.subarray(0, na).equals(bb.subarray(0, nb))) return false;
      if (na === 0) return true;
      pos += na;
    }
  } catch {
    return false;
  } finally {
    if (fa !== undefined) closeSync(fa);
    if (fb !== undefined) closeSync(fb);
  }
}

/**
 * The journal of a new run (its header says how to rebuild every batch, where it sends and which
 * runs' numbers it leaves out), or the resumed one's.
 */
export function openJournal(
  ctx: Pick<Context, 'now' | 'version'>,
  state: Run,
  input: RunInput,
  shape: RunShape,
  message: Record<string, unknown>,
  pre: PreflightResult,
  run: { readonly target: JournaledTarget; readonly skipSent: readonly SkipSentSource[]; readonly alreadySent: number; readonly again: boolean; readonly once: OnceRecord | undefined; readonly optOuts: RunHeader['optOuts'] },
): Journal {
  const open = (): Journal => {
    if (state.kind === 'resume') return Journal.append(state.journalPath, ctx.now);
    const header: RunHeader = {
      type: 'run',
      version: 1,
      runId: state.runId,
      createdAt: ctx.now().toISOString(),
      msgr: ctx.version,
      input: { path: input.path, stdin: input.stdin, size: input.identity.size, mtimeMs: input.identity.mtimeMs, quickHash: input.identity.quickHash, hash: pre.hash, ...(pre.dataHash !== '' ? { dataHash: pre.dataHash } : {}) },
      shape,
      message,
      totals: { rows: pre.rows, toSend: pre.toSend, requests: pre.requests, ...(run.alreadySent > 0 ? { alreadySent: run.alreadySent } : {}) },
      target: run.target,
      ...(run.skipSent.length > 0 ? { skipSent: run.skipSent } : {}),
      ...(run.again ? { again: true as const } : {}),
      ...(run.once !== undefined ? { once: run.once } : {}),
      ...(run.optOuts !== undefined ? { optOuts: run.optOuts } : {}),
    };
    const journal = Journal.create(state.journalPath, header, ctx.now);
    input.keep();
    return journal;
  };
  try {
    return open();
  } catch (err) {
    throw stateWriteError(err, dirname(state.journalPath));
  }
}

/** The file the run reads: the CSV, or the copy of stdin. */
export interface RunInput {
  readonly path: string;
  readonly stdin: boolean;
  /** For messages: the file as given, or "stdin". */
  readonly label: string;
  readonly identity: InputStat;
  /** A journal now refers to the copy of stdin: it stays after the run. */
  keep(): void;
}
