// Whether two paths name one file: the same path, or (through a symlink, a hard link, `./`) the
// same file on the same device. A file msgr writes (a report, a journal) must never be one it
// reads, or opening it for writing empties the input before it is read.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';

export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino && x.ino !== 0;
  } catch {
    // One of them does not exist yet: then they are different files.
    return false;
  }
}
