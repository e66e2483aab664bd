// The side channels of one send-bulk run, in one object: the cleanups its end runs, what a full
// disk's message needs as far as the run got, and what quitting at once (a second Ctrl-C) must
// tidy and say. Built first by src/commands/send-bulk/run.ts (through the door,
// bulk/campaign-door.ts) and handed to the stages that set them; nothing else keeps run state aside.
import { dirname } from 'node:path';
import type { Context } from '../context.js';
import { stateDir } from '../files/state-dir.js';
import { isNoSpace } from './journal/writer.js';
import type { ReportWriter } from './report/report-file.js';
import { noSpaceError, type Where } from './journal/reserve.js';

/**
 * The run's side channels, built first (src/commands/send-bulk/run.ts) and handed to each stage:
 * the cleanups its end runs (last first), what a full disk's message needs as far as the run got
 * (`where`), and what quitting at once (a second Ctrl-C) must tidy and say.
 */
export class RunContext {
  readonly #cleanups: Array<() => void> = [];
  readonly #where: Where = {};
  #inDoubt: () => boolean = () => false;
  #report: ReportWriter | undefined;

  constructor(ctx: Context) {
    // First Ctrl-C: finish what is in flight and write everything down. A second quits at once:
    // the report being written is removed (the one at its path stays as it was), and the exit
    // code says whether requests were left without their answers.
    ctx.enableGracefulInterrupt(() => {
      this.#report?.discard();
      return { inDoubt: this.#inDoubt(), resume: this.#where.resume };
    });
  }

  /** Runs `cleanup` when the run ends, however it ends (before the ones deferred earlier). */
  readonly defer = (cleanup: () => void): void => {
    this.#cleanups.push(cleanup);
  };

  /** The folder a full disk is met in, from now on (the run's). */
  at(folder: string): void {
    this.#where.folder = folder;
  }

  /** The input's size: what a resume needs room for. */
  reads(bytes: number): void {
    this.#where.inputBytes = bytes;
  }

  /** A journal exists: a stop is resumed with this command. */
  resumable(command: string): void {
    this.#where.resume = command;
  }

  /** The send pass began: a full disk from then on stops the run as Ctrl-C does. */
  sending(): void {
    this.#where.sending = true;
  }

  /** What a second Ctrl-C leaves in doubt, as far as the run knows now. */
  inDoubtIs(fn: () => boolean): void {
    this.#inDoubt = fn;
  }

  /** The report being written, removed by a second Ctrl-C. */
  reportIs(report: ReportWriter | undefined): void {
    this.#report = report;
  }

  /**
   * The error the command ends with: a full disk wherever it was met (the spool, the journal's
   * header, the reserve, the report) is an environment error that stops the run, never a stack
   * trace; anything else as it is.
   */
  failed(ctx: Pick<Context, 'env' | 'cwd'>, err: unknown): unknown {
    if (!isNoSpace(err)) return err;
    // Before the run's folder is known, the file that failed says where (the lock, a folder).
    const path = (err as NodeJS.ErrnoException).path;
    this.#where.folder ??= path !== undefined ? dirname(path) : stateDir(ctx.env, ctx.cwd);
    return noSpaceError(this.#where);
  }

  /** The cleanups, last deferred first; one that fails does not hide the outcome. */
  close(): void {
    for (const fn of this.#cleanups.reverse()) {
      try {
        fn();
      } catch {
        // Cleanup must not hide the outcome.
      }
    }
    this.#cleanups.length = 0;
  }
}
