// The listener's token (docs/events.md: "The URL and the token"): a request without it is answered 401 and
// not recorded. Unless one is given, msgr makes one the first time and keeps it beside the events
// file (0600), so the webhook URL registered with a provider stays the same across restarts, and
// `msgr listen --print-url` tells a script the URL before the listener runs.
//
// Several msgr commands may make it at once (a script starting `msgr listen` and asking
// `--print-url` in the same breath): the token is written whole to a file of this process's own,
// then linked to its name, which fails if another got there first. The name never holds a file
// still being written, so a reader never sees it empty; the loser reads the winner's.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { ensureDir, FOR_LISTENING } from '../files/dirs.js';

/** Characters a token may have: it travels as a path segment and in headers, unescaped. */
export const TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,128}$/;

export function checkToken(token: string, origin: string): string {
  if (!TOKEN_PATTERN.test(token)) {
    throw new UsageError(`${origin}: a listener token must be 16 to 128 letters, digits, dots, dashes, underscores or tildes`, {
      hint: 'Leave it out and msgr makes one (kept in the state folder), or make one with: openssl rand -hex 24',
    });
  }
  return token;
}

/** The token kept at `path`, made (24 random bytes, base64url) when there is none yet. */
export function keptToken(path: string): { token: string; created: boolean } {
  try {
    const token = readFileSync(path, 'utf8').trim();
    return { token: checkToken(token, path), created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot read the listener token ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'Give one with --token (or MSGR_LISTEN_TOKEN), or make the file readable.' });
    }
  }
  const token = randomBytes(24).toString('base64url');
  const aside = `${path}.${randomBytes(8).toString('hex')}.new`;
  try {
    ensureDir(dirname(path), FOR_LISTENING);
    const fd = openSync(aside, 'wx', 0o600);
    try {
      writeSync(fd, `${token}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(aside, path);
    } catch (err) {
      // A file system without hard links: the file is made at its name, as whole as one write makes it.
      if (!['EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
      writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
    }
    return { token, created: true };
  } catch (err) {
    // Made meanwhile by another msgr: that one is the token.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return keptToken(path);
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot write the listener token ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'Give one with --token (or MSGR_LISTEN_TOKEN), or point MSGR_CONFIG_DIR at a writable folder.' });
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Where `msgr listen` listens unless told otherwise, and where `msgr trigger` posts by default. */
export const DEFAULT_LISTEN_PORT = 4020;
export const DEFAULT_HOST = '127.0.0.1';

/** The URL a provider (or the sandbox) posts to: the token is the path's first segment. */
export function webhookUrl(host: string, port: number, token: string): string {
  // A listener on every address is reached here on loopback.
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}/${token}`;
}
