// Whether two paths name one file: the same path, or (through a symlink, a hard link, `./`) the
// same file on the same device. A file msgr writes (a report, a journal) must never be one it
// reads, or opening it for writing empties the input before it is read.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';

export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    // bigint: a file id of 64 bits (Windows) is not always exact as a Number.
    const x = statSync(a, { bigint: true });
    const y = statSync(b, { bigint: true });
    return x.dev === y.dev && x.ino === y.ino && x.ino !== 0n;
  } catch {
    // One of them does not exist yet: then they are different files.
    return false;
  }
}
