// Reading a PEM file of extra trusted certificates (--ca-file, MSGR_CA_FILE, a profile's
// ca-file). Apart from client.ts so that checking one (profile set, doctor) does not load undici.
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

/** Reads and checks a CA file; `source` names where it came from in errors. */
export function readCaFile(caFile: string, source = '--ca-file'): string {
  let pem: string;
  try {
    pem = readFileSync(caFile, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : code === 'EACCES' ? 'permission denied' : (code ?? 'error');
    throw new UsageError(`${source}: cannot read ${caFile} (${why})`, { hint: 'Give the path of a PEM file holding the root certificate(s) to trust.' });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`${source}: ${caFile} holds no PEM certificate`, { hint: 'Give a PEM file with one or more -----BEGIN CERTIFICATE----- blocks.' });
  }
  return pem;
}

/** How errors name a CA file's origin: `--ca-file`, `MSGR_CA_FILE`, `profile prod's ca-file`. */
export function caFileSource(r: { source: string; origin?: string | undefined }): string {
  if (r.source === 'flag') return '--ca-file';
  if (r.source === 'env') return r.origin ?? 'MSGR_CA_FILE';
  return r.origin !== undefined ? `profile ${r.origin}'s ca-file` : "the profile's ca-file";
}
