// V8 code caches for bin/code-cache.cjs: the build runs msgr on sample commands and keeps the
// code V8 compiled, in dist/cache/v8-<V8 version>/, for the Node that runs the build. Measured
// with `npm run bench -- --only startup --tricks` (docs/performance.md), 2026-11-24, against
// no cache on Node 20 and Node's own compile cache on 24 and 26: `send --dry-run` 24 %, 20 %
// and 15 % faster, the HTTPS send 17 %, 9 % and 13 %.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Stamps a bundle with its build id, which names its caches (an unstamped bundle is never
 * cached): a rebuilt or edited bundle never runs another build's compiled code.
 */
export function stampBuildId(file) {
  const code = readFileSync(file, 'utf8');
  writeFileSync(file, `//# msgr-build ${createHash('sha256').update(code).digest('hex').slice(0, 16)}\n${code}`);
}

/**
 * Sample runs of the installed `bin` on `dist`, in a scratch config folder, with no NODE_* or
 * MSGR_* settings of the builder's: a dry run (the bundle, libphonenumber, chalk), then an
 * in-process sandbox send (undici, which a send loads after choosing its V8 flags), then a dry run
 * with a send window (the schedule's code).
 */
export function makeCodeCaches(bin, dist) {
  mkdirSync(join(dist, 'cache', `v8-${process.versions.v8}`), { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'msgr-build-'));
  const env = { PATH: process.env.PATH ?? '', HOME: scratch, MSGR_CONFIG_DIR: join(scratch, 'config'), NO_COLOR: '1', MSGR_WRITE_CODE_CACHE: '1' };
  // A national number too, so libphonenumber-js itself runs (the fast path answers the other).
  const msg = ['--to', '+447911123456,07911 123457', '--default-country', 'GB', '--from', 'Acme', '--text', 'Hello'];
  try {
    // The last, with a send window, for send-flags.cjs (build/send-first.mjs) alone: msgr.cjs keeps
    // the cache of the first, which a send without those flags runs.
    for (const args of [['send', '--dry-run', ...msg, '--account', 'BUILD'], ['send', '--sandbox', ...msg], ['send', '--dry-run', ...msg, '--account', 'BUILD', '--window', '09:00-17:00']]) {
      try {
        execFileSync(process.execPath, [bin, ...args], { env, stdio: 'ignore', timeout: 30_000 });
      } catch (err) {
        // The caches only make start-up faster; a machine where a sample run fails still gets a
        // working msgr (and the tests will say why the run failed).
        console.warn(`build: no code cache from \`msgr ${args.join(' ')}\`: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
