// A small tmpfs for the full-disk tests: the only way to fill a disk on purpose, in seconds and
// without touching the machine's own. Mounting needs root (or CAP_SYS_ADMIN): elsewhere the test
// is skipped with that reason.
import { execFileSync } from 'node:child_process';
import type { TestContext } from 'node:test';
import { tempDir } from './cli.js';

/** A tmpfs of `size` (mount's `size=` syntax: 64k, 1m) on a new folder; undefined (the test skipped) where it cannot be mounted. */
export function tmpfs(t: TestContext, size: string): string | undefined {
  const dir = tempDir('msgr-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    t.skip('cannot mount a tmpfs here (it needs root, or CAP_SYS_ADMIN); the full-disk path is not tested');
    return undefined;
  }
}

export function unmount(dir: string): void {
  execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
}
