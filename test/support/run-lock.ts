// A bulk run's lock in a state folder, for the tests that write or age one as another host or a
// suspended process would leave it (docs/unattended.md: "A state folder shared by several hosts",
// "A stopped run").
import assert from 'node:assert/strict';
import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

/** The lock of the key's run in the state folder. */
export function keyLock(config: string, key: string): string {
  const folder = readdirSync(join(config, 'runs')).find((f) => f.startsWith(`once-${key}-`));
  assert.ok(folder !== undefined, `the run folder of --once ${key}`);
  return join(config, 'runs', folder, 'journal.jsonl.lock');
}

/** Backdates the lock's heartbeat (its mtime), as `ms` of a suspended process or a host gone would leave it. */
export function quietFor(lock: string, ms: number): void {
  const then = new Date(Date.now() - ms);
  utimesSync(lock, then, then);
}
