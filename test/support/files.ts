// Files for unit tests: a CSV (or any text) written into a temporary folder of its own.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './cli.js';

/** Writes `content` to `name` in a new temporary folder; returns its path. */
export function tempFile(content: string | Buffer, name = 'in.csv'): string {
  const path = join(tempDir(), name);
  writeFileSync(path, content);
  return path;
}
