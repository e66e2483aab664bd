// Files msgr keeps per account in its state folder (docs/files.md: "Where things are kept"):
// `<state>/<folder>/<account>.<ext>`. The account is the resolved accountReference; with none
// (no flag, variable or profile gives one) the files are `_all`: opt-outs there apply to every
// account, and events there belong to none in particular. `_` cannot begin an accountReference
// (the spec's "letters followed by characters"), so `_all` never names a real account.
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const NO_ACCOUNT = '_all';

/** The account as a file name: itself when it is a safe one, else its safe part and a hash. */
export function accountSlug(account: string | undefined): string {
  if (account === undefined || account === '' || account === NO_ACCOUNT) return NO_ACCOUNT;
  if (/^[A-Za-z][A-Za-z0-9._-]{0,63}$/.test(account)) return account;
  const safe = account.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[^A-Za-z]+/, '').slice(0, 40);
  return `${safe === '' ? 'account' : safe}-${sha256Hex(account).slice(0, 8)}`;
}

/**
 * node:crypto, loaded here only for an account that is not a safe file name: imported at the top,
 * it cost every `send` its load, as send reads the opt-out store (37.4 → 43.7 ms of
 * `send --dry-run` on Node 26, hyperfine; docs/performance.md). Web Crypto has no synchronous
 * digest, and the slug must stay what earlier msgr versions named the files.
 */
function sha256Hex(text: string): string {
  const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}

export function accountFile(state: string, folder: 'events' | 'optouts', account: string | undefined, ext: string): string {
  return join(state, folder, `${accountSlug(account)}.${ext}`);
}
