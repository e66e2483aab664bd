// Where a bulk run keeps its state (journal, lock, spooled stdin, the preflight's plan):
// `<state dir>/runs/<file name>-<hash of its real path>/`, so `--resume` finds the run of a
// file from the file alone, by whichever name (a symlink, `./x.csv`, an absolute path) it is
// given; `--sandbox` runs under `<state dir>/sandbox/runs/` (the state dir: src/files/state-dir.ts).
// Folders are 0700: journals name files and hold numbers and message text.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runsRoot } from '../../files/state-dir.js';

/**
 * The path a run of a file is known by: its real path, symlinks and `..` resolved, so every
 * spelling of one file finds the same run folder, journal and lock. A file that is not there
 * keeps its spelling: reading it fails later, naming it as given. So does a pipe
 * (`<(command)` is /dev/fd/63, whose link names no file: Node's JS realpath returns
 * "/proc/PID/fd/pipe:[…]" for it, realpath(3) refuses it), which the reader then refuses as one.
 */
export function realFile(abs: string): string {
  try {
    return realpathSync.native(abs);
  } catch {
    return abs;
  }
}

/** The run folder of an input file (its real path: realFile). */
export function runDirFor(state: string, absInput: string, sandbox = false): string {
  const slug = basename(absInput).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40);
  const hash = createHash('sha256').update(absInput).digest('hex').slice(0, 12);
  return join(runsRoot(state, sandbox), `${slug}-${hash}`);
}

/** A fresh folder for a run that reads stdin. */
export function stdinRunDir(state: string, runId: string, sandbox = false): string {
  return join(runsRoot(state, sandbox), `stdin-${runId}`);
}

