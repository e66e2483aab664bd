// Files for tests: a CSV (or any text) written into a temporary folder of its own; the ids of the
// events an events file of msgr listen holds.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './cli.js';

/** Writes `content` to `name` in a new temporary folder; returns its path. */
export function tempFile(content: string | Buffer, name = 'in.csv'): string {
  const path = join(tempDir(), name);
  writeFileSync(path, content);
  return path;
}

/** The `id` in the body of each event an events file holds (none when there is no file). */
export function eventIds(path: string): Set<string> {
  if (!existsSync(path)) return new Set();
  return new Set(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse((JSON.parse(l) as { body: string }).body) as { id: string }).id),
  );
}
