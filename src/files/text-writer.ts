// A buffered, synchronous text file writer for the spool and the report. Text is collected as a
// string and encoded into one reused buffer: a new Buffer per flush is external memory that V8
// returns only at a full GC, and with millions of rows that showed up as peak RSS.
import { closeSync, fchmodSync, openSync, writeSync } from 'node:fs';

const FLUSH_CHARS = 64 * 1024;

export class TextFile {
  readonly path: string;
  #fd: number;
  #text = '';
  // A UTF-16 unit is at most 3 UTF-8 bytes.
  readonly #bytes = Buffer.allocUnsafeSlow(FLUSH_CHARS * 3);

  /**
   * Opens (truncating) with mode 0600; throws the fs error. `fresh`: the file must not exist (a
   * link planted at its path is not followed: EEXIST).
   */
  constructor(path: string, fresh = false) {
    this.path = path;
    this.#fd = openSync(path, fresh ? 'wx' : 'w', 0o600);
  }

  /** Gives the file `mode` (the permissions of the file it will replace). */
  chmod(mode: number): void {
    fchmodSync(this.#fd, mode);
  }

  write(text: string): void {
    this.#text += text;
    if (this.#text.length > FLUSH_CHARS) this.flush();
  }

  /** The error a write met (a full disk): what was buffered then is lost, so the file is not whole. */
  failed: Error | undefined;

  flush(): void {
    try {
      this.#flush();
    } catch (err) {
      this.failed ??= err instanceof Error ? err : new Error(String(err));
      throw err;
    }
  }

  #flush(): void {
    let text = this.#text;
    this.#text = '';
    // A row can be longer than the buffer (a huge variable): encode it in pieces.
    while (text !== '') {
      let cut = Math.min(text.length, FLUSH_CHARS);
      // Never between the two halves of a surrogate pair: each piece is encoded on its own.
      if (cut < text.length && (text.charCodeAt(cut - 1) & 0xfc00) === 0xd800) cut--;
      const len = this.#bytes.write(text.slice(0, cut), 0, 'utf8');
      text = text.slice(cut);
      let off = 0;
      while (off < len) off += writeSync(this.#fd, this.#bytes, off, len - off);
    }
  }

  /** Closes without writing what is buffered (the file is to be removed); never throws. */
  abandon(): void {
    if (this.#fd < 0) return;
    this.#text = '';
    try {
      closeSync(this.#fd);
    } catch {
      // The file is removed next: nothing of it matters.
    }
    this.#fd = -1;
  }

  close(): void {
    if (this.#fd < 0) return;
    this.flush();
    closeSync(this.#fd);
    this.#fd = -1;
  }
}
