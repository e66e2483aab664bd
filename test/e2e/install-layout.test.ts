// The installed layout that bin/msgr.js loads (scripts/build.mjs): the bundle, vendor bundles
// loaded on first use, and V8 code caches (bin/code-cache.cjs) that must never be able to break a
// run.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { ROOT, cleanEnv, tempDir } from '../support/cli.js';

const DRY_RUN = ['send', '--dry-run', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--account', 'ACME01'];

/** A copy of the installed files (bin/, dist/, package.json) to tamper with. */
function copyInstall(parts: string[] = ['bin', 'dist', 'package.json']): string {
  const dir = tempDir('msgr-install-');
  for (const p of parts) cpSync(join(ROOT, p), join(dir, p), { recursive: true });
  return dir;
}

function run(dir: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(dir, 'bin', 'msgr.js'), ...args], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }), encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Whether the build makes V8 code caches on this Node (scripts/build/tricks.mjs). */
const { TRICKS } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build', 'tricks.mjs')).href)) as { TRICKS: Record<string, boolean> };
const buildMakesCaches = TRICKS['code-cache'] === true;

/** The folder bin/msgr.js reads this V8's caches from; it uses bin/code-cache.cjs only when it exists. */
const cacheDirOf = (dir: string): string => join(dir, 'dist', 'cache', `v8-${process.versions.v8}`);

/** bin/code-cache.cjs's name for an install folder in cache file names (FNV-1a of its dist path). */
function whereHash(dist: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < dist.length; i++) h = Math.imul(h ^ dist.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16);
}

/** The cache file bin/code-cache.cjs reads for a bundle of the install in `dir`. */
function cacheName(dir: string, bundle: string): string {
  const id = /^\/\/# msgr-build ([0-9a-f]+)\n/.exec(readFileSync(join(dir, 'dist', bundle), 'utf8'))?.[1] ?? 'none';
  return `${bundle.replace('/', '_')}.${id}.${whereHash(join(dir, 'dist'))}.bin`;
}

test('code caches that do not fit (garbage, truncated) are ignored: the commands still work', () => {
  const dir = copyInstall();
  const cacheDir = cacheDirOf(dir);
  // Garbage under exactly the names bin/code-cache.cjs looks for in this copy (where the build
  // makes no caches, the folder alone makes bin/msgr.js use it).
  const names = ['msgr.cjs', 'vendor/undici.cjs', 'vendor/phone-metadata.cjs'].map((bundle) => cacheName(dir, bundle));
  mkdirSync(cacheDir, { recursive: true });
  for (const [i, name] of names.entries()) writeFileSync(join(cacheDir, name), i % 2 === 0 ? 'not a code cache' : Buffer.alloc(4096, 7));

  const dry = run(dir, DRY_RUN);
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal((JSON.parse(dry.stdout) as { recipients: Array<{ msisdn: string }> }).recipients[0]?.msisdn, '+447911123456');

  // A real request through undici's bundle, to the in-process sandbox.
  const sent = run(dir, ['send', '--sandbox', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--json']);
  assert.equal(sent.code, 0, sent.stderr);
  assert.equal((JSON.parse(sent.stdout) as { status: string }).status, 'accepted');
});

test('without dist/ the program says how to build it (exit 1); --version still answers', () => {
  const dir = copyInstall(['bin', 'package.json']);
  const r = run(dir, DRY_RUN);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot load dist\/msgr\.cjs .*run `npm ci` or `npm run build`/);
  assert.equal(r.stdout, '');
  const v = run(dir, ['--version']);
  assert.equal(v.code, 0);
  assert.equal(v.stdout.trim(), (createRequire(import.meta.url)(join(ROOT, 'package.json')) as { version: string }).version);
});

test('where the build makes code caches, it leaves one for this V8 (elsewhere Node keeps its own)', (t) => {
  if (!buildMakesCaches) {
    t.skip('Node caches compiled code itself here (module.enableCompileCache)');
    return;
  }
  const caches = readdirSync(cacheDirOf(ROOT));
  for (const bundle of ['msgr.cjs', 'vendor/undici.cjs']) {
    const name = cacheName(ROOT, bundle);
    assert.ok(caches.includes(name), `no ${name} in ${caches.join(', ')}`);
  }
});

test('a code cache serves only the build it was made for: a rebuilt bundle never runs old compiled code', (t) => {
  if (!buildMakesCaches) {
    t.skip('Node caches compiled code itself here (module.enableCompileCache)');
    return;
  }
  const dir = copyInstall();
  // Caches for this copy's folder, as if the build had run here.
  const cacheDir = cacheDirOf(dir);
  const here = whereHash(join(dir, 'dist'));
  for (const name of readdirSync(cacheDir)) {
    renameSync(join(cacheDir, name), join(cacheDir, name.replace(/^([^.]+\.cjs\.[0-9a-f]+\.)[0-9a-f]+(\.bin)$/, `$1${here}$2`)));
  }
  const bundle = join(dir, 'dist', 'msgr.cjs');
  const source = readFileSync(bundle, 'utf8');
  const edited = source.replace('dry run: request for', 'DRY RUN: REQUEST FOR');
  assert.equal(edited.length, source.length);
  const dry = (): string => {
    const r = spawnSync(process.execPath, [join(dir, 'bin', 'msgr.js'), ...DRY_RUN], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stderr;
  };
  // Control: the same build id, edited in place, still gets the cache (V8 only checks the length),
  // so the caches are live here and the next check means something.
  writeFileSync(bundle, edited);
  assert.match(dry(), /dry run: request for 1 recipient/);
  // A rebuild has another id: its own code runs.
  writeFileSync(bundle, edited.replace(/^\/\/# msgr-build ([0-9a-f]+)\n/, (_, id: string) => `//# msgr-build ${[...id].reverse().join('')}\n`));
  assert.match(dry(), /DRY RUN: REQUEST FOR 1 recipient/);
});

test('a copy of the install in another folder does not use caches made for the first one (stack traces name the real files)', () => {
  const dir = copyInstall();
  rmSync(join(dir, 'dist', 'vendor', 'undici.cjs'));
  const r = run(dir, ['send', '--sandbox', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--verbose']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\\\/]dist[\\\\/]msgr\\.cjs`));
  assert.doesNotMatch(r.stderr, new RegExp(`${join(ROOT, 'dist').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\\\/]msgr\\.cjs`));
});

test('MSGR_WRITE_CODE_CACHE cannot change a run\'s outcome, even where no cache can be written', () => {
  const dir = copyInstall();
  // Folders where the cache files would be written.
  rmSync(join(dir, 'dist', 'cache'), { recursive: true, force: true });
  for (const bundle of ['msgr.cjs', 'vendor/phone.cjs']) mkdirSync(join(cacheDirOf(dir), cacheName(dir, bundle)), { recursive: true });
  const r = spawnSync(process.execPath, [join(dir, 'bin', 'msgr.js'), ...DRY_RUN], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_WRITE_CODE_CACHE: '1' }), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /EEXIST|ENOTDIR|at /);
});

test('a failure while reporting an error (a damaged install) is one line and exit 1, no stack', () => {
  const dir = copyInstall();
  rmSync(join(dir, 'dist', 'vendor', 'chalk.cjs'));
  const r = spawnSync(process.execPath, [join(dir, 'bin', 'msgr.js'), 'send', '--to', '12', '--from', 'Acme', '--text', 'hi', '--account', 'A'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), NO_COLOR: undefined, FORCE_COLOR: '1' }), encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^msgr: internal error: .*chalk\.cjs/m);
  assert.doesNotMatch(r.stderr, /^\s+at /m);
});

test('a send without a window reads neither the schedule\'s bundle nor the other commands\'; one with a window reads the schedule\'s', (t) => {
  if (TRICKS['send-first'] !== true) {
    t.skip('the build makes one bundle here (scripts/build/tricks.mjs: send-first)');
    return;
  }
  const dir = copyInstall();
  const windowed = [...DRY_RUN, '--window', '00:00-23:59', '--tz', 'UTC'];
  const whole = run(dir, windowed);
  assert.equal(whole.code, 0, whole.stderr);
  assert.match(whole.stderr, /^when: send window 00:00-23:59 .*: open now$/m);
  // Without the bundles a plain send never reads, it is the same send.
  const before = run(dir, DRY_RUN);
  rmSync(join(dir, 'dist', 'send-flags.cjs'));
  rmSync(join(dir, 'dist', 'commands.cjs'));
  const after = run(dir, DRY_RUN);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(after.stdout, before.stdout);
  assert.equal(after.stderr, before.stderr);
  // The window's code was in the bundle removed.
  const cut = run(dir, windowed);
  assert.equal(cut.code, 1);
  assert.match(cut.stderr, /send-flags\.cjs/);
});

test('--help before a command is the top-level help, listing every command', () => {
  for (const args of [['--help', 'send'], ['-h', 'sandbox']]) {
    const r = run(ROOT, args);
    assert.equal(r.code, 0);
    for (const name of ['send', 'send-bulk', 'profile', 'sandbox']) assert.match(r.stdout, new RegExp(`^  ${name} `, 'm'), `${args.join(' ')}: ${name}`);
  }
});
