// Room kept for the answers of the batches in flight when the disk fills (docs/design.md: "A reserve for a full disk"):
// a file of real bytes next to the journal, given back the moment the journal cannot write.
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';

/**
 * Room kept for the answers of the batches in flight when the disk fills: ~700 bytes each, plus
 * the message ids of an accepted batch (~40 bytes a recipient). At most 64 in flight: 1 MiB
 * holds them all up to batches of ~300 recipients; past that, answers that do not fit wait for
 * room (Journal.done), never dropped.
 */
export const RESERVE_BYTES = 1024 * 1024;

/**
 * A ballast file of real, incompressible bytes that gives its space back the moment the journal
 * cannot write (docs/design.md: "A reserve for a full disk"). Random bytes because a compressing file system (btrfs,
 * ZFS) would store zeros, or any pattern, in next to nothing; flushed so the blocks are taken.
 */
export class DiskReserve {
  readonly path: string;
  readonly bytes: number;
  #held: boolean;

  private constructor(path: string, bytes: number) {
    this.path = path;
    this.bytes = bytes;
    this.#held = true;
  }

  /** Takes the space now; throws (ENOSPC) when there is not even that much. */
  static take(path: string, bytes = RESERVE_BYTES): DiskReserve {
    const fd = openSync(path, 'w', 0o600);
    try {
      const chunk = randomBytes(Math.min(bytes, 64 * 1024));
      for (let off = 0; off < bytes; ) off += writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - off));
      fdatasyncSync(fd);
    } catch (err) {
      closeSync(fd);
      rmSync(path, { force: true });
      throw err;
    }
    closeSync(fd);
    return new DiskReserve(path, bytes);
  }

  get held(): boolean {
    return this.#held;
  }

  /** Gives the space back; true if there was any to give. */
  release(): boolean {
    if (!this.#held) return false;
    this.#held = false;
    try {
      rmSync(this.path, { force: true });
      return true;
    } catch {
      return false;
    }
  }
}
