// The installed layout that bin/msgr.js loads (scripts/build.mjs): the bundle, vendor bundles
// loaded on first use, and V8 code caches that must never be able to break a run.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
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

test('code caches that do not fit (garbage, truncated) are ignored: the commands still work', () => {
  const dir = copyInstall();
  const cacheDir = join(dir, 'dist', 'cache');
  const caches = existsSync(cacheDir) ? readdirSync(cacheDir) : [];
  // On Node 22+ the build makes none; plant some with the names Node 20 would look for, too.
  const names = [...caches, ...['msgr.cjs', 'vendor_phone.cjs', 'vendor_undici.cjs'].map((f) => `${f}.v8-${process.versions.v8}.bin`)];
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

test('on Node 20 the build leaves a code cache for this V8 (Node 22+ keeps its own)', (t) => {
  if (typeof (createRequire(import.meta.url)('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function') {
    t.skip('Node 22+ caches compiled code itself (module.enableCompileCache)');
    return;
  }
  const caches = readdirSync(join(ROOT, 'dist', 'cache'));
  for (const bundle of ['msgr.cjs', 'vendor_undici.cjs']) {
    assert.ok(caches.includes(`${bundle}.v8-${process.versions.v8}.bin`), `no cache for ${bundle} in ${caches.join(', ')}`);
  }
});

test("the bundled phone metadata is libphonenumber-js's own, key for key, value for value", () => {
  const require = createRequire(import.meta.url);
  const bundled = require(join(ROOT, 'dist', 'vendor', 'phone-metadata.cjs')) as Record<string, unknown>;
  const original = require(join(ROOT, 'node_modules', 'libphonenumber-js', 'metadata.max.json')) as Record<string, unknown>;
  // Countries are parsed on first read; JSON.stringify reads them all, in the object's key order.
  assert.equal(JSON.stringify(bundled), JSON.stringify(original));
  assert.ok(Object.prototype.hasOwnProperty.call(bundled.countries, 'GB'));
});
