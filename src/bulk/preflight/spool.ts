// The preflight's verdict per data row, kept on disk between the two passes (docs/campaign-input.md: "Scale":
// two passes, nothing per row in memory). One text line per row:
//   S <tab> line <tab> +E164 <tab> recipient JSON     to send
//   S <tab> line <tab> +E164 <tab> recipient JSON <tab> message key   to send, when rows have
//                                                     messages of their own (bulk/compose/personalise.ts)
//   S <tab> line <tab> +E164 <tab> #hash <tab> …       to send, with --allow-duplicates and rows that
//                                                     differ in their message: the row's number-and-
//                                                     message hash (base 36) before the payload, for
//                                                     the journal (bulk/preflight/repeats.ts messageHash)
//   D <tab> line <tab> +E164 <tab>                    duplicate
//   D <tab> line <tab> +E164 <tab> message key        duplicate, when rows have messages of their own
//   X <tab> line <tab> +E164 <tab>                    excluded (the --exclude list)
//   O <tab> line <tab> +E164 <tab>                    opted out (the opt-out store); read with
//                                                     why as payload (bulk/send-pass/opt-outs.ts withOptOutReasons)
//   A <tab> line <tab> +E164 <tab>                    to send, but an earlier run accepted the
//                                                     number (bulk/earlier/already-sent.ts); read with the run
//                                                     and message id as payload (withSentIds)
//   I <tab> line <tab> number as written <tab> JSON string of the reason     invalid
// The recipient JSON is built once, in the preflight, so the send pass neither parses the CSV
// again nor checks numbers: it reads these lines and joins them into request bodies. JSON has no
// raw tab or newline, and the raw number of an invalid row has them replaced.
import { unlinkSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { TextFile } from '../../files/text-writer.js';

export type SpoolKind = 'S' | 'D' | 'X' | 'O' | 'I' | 'A' | 'F';
export type SpoolLine = (kind: SpoolKind, line: number, number: string, payload: string) => void;

/**
 * Where the send pass reads the preflight's verdicts, in row order, whatever the preflight wrote
 * them to (one file, or the parts of a split preflight: bulk/preflight/parallel.ts).
 */
export type SpoolSource = (onLine: SpoolLine, afterChunk?: () => Promise<void> | void) => Promise<void>;

/** The spool of a single-pass preflight: one file. */
export function spoolFile(path: string): SpoolSource {
  return (onLine, afterChunk) => readSpool(path, onLine, afterChunk);
}

const CHUNK_BYTES = 64 * 1024;

export class SpoolWriter {
  readonly #file: TextFile;

  constructor(readonly path: string) {
    this.#file = new TextFile(path);
  }

  send(line: number, e164: string, recipientJson: string, messageHash?: number): void {
    this.#file.write(`S\t${line}\t${e164}\t${messageHash !== undefined ? `#${messageHash.toString(36)}\t` : ''}${recipientJson}\n`);
  }

  skip(kind: 'D' | 'X' | 'O' | 'A' | 'F', line: number, e164: string, messageKey = ''): void {
    this.#file.write(`${kind}\t${line}\t${e164}\t${messageKey}\n`);
  }

  invalid(line: number, raw: string, reason: string): void {
    this.#file.write(`I\t${line}\t${raw.replace(/[\t\r\n]/g, ' ')}\t${JSON.stringify(reason)}\n`);
  }

  close(): void {
    this.#file.close();
  }
}

/**
 * Reads the spool in order, one callback per row; `afterChunk` is awaited between chunks
 * (back-pressure) and may throw to stop.
 */
export async function readSpool(path: string, onLine: SpoolLine, afterChunk?: () => Promise<void> | void): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(path, 'r');
    const buf = Buffer.allocUnsafeSlow(CHUNK_BYTES);
    let carry = '';
    let position = 0;
    const decoder = new TextDecoder('utf-8');
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const text = carry + decoder.decode(buf.subarray(0, bytesRead), { stream: true });
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        parse(text, start, nl, onLine);
        start = nl + 1;
      }
      carry = text.slice(start);
      if (afterChunk !== undefined) await afterChunk();
    }
    const rest = carry + decoder.decode();
    if (rest !== '') parse(rest, 0, rest.length, onLine);
  } finally {
    await fh?.close();
  }
}

function parse(text: string, start: number, end: number, onLine: SpoolLine): void {
  const t1 = text.indexOf('\t', start);
  const t2 = text.indexOf('\t', t1 + 1);
  const t3 = text.indexOf('\t', t2 + 1);
  onLine(text[start] as SpoolKind, Number(text.slice(t1 + 1, t2)), text.slice(t2 + 1, t3), text.slice(t3 + 1, end));
}

/** An `S` line's payload without its message hash, and the hash (undefined when it has none). */
export function splitMessageHash(payload: string): { readonly payload: string; readonly hash: number | undefined } {
  if (payload[0] !== '#') return { payload, hash: undefined };
  const tab = payload.indexOf('\t');
  return { payload: payload.slice(tab + 1), hash: Number.parseInt(payload.slice(1, tab), 36) };
}

export function removeSpool(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
