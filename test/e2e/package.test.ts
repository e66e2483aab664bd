// A clean package: packed as npm pack packs it, installed globally into a fresh prefix with no
// network (the package has no dependencies to fetch), and run from another folder.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { ROOT, cleanEnv, tempDir } from '../support/cli.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd: string, args: string[], cwd: string, env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** npm's own complaints about this machine's npm configuration are not the package's. */
const ours = (stderr: string): string[] => stderr.split('\n').filter((l) => /\bwarn\b/i.test(l) && !/Unknown (user|env|project|global) config/.test(l));

test('npm pack, npm i -g into a fresh prefix, run from elsewhere', { timeout: 180_000 }, () => {
  const work = tempDir('msgr-pack-');
  const env = cleanEnv({ npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' });
  for (const step of [['run', 'prepack'], ['pack', '--ignore-scripts', '--pack-destination', work], ['run', 'postpack']]) {
    const r = run(npm, step, ROOT, env);
    assert.equal(r.status, 0, `${step.join(' ')}: ${r.stderr}`);
  }
  assert.ok(!existsSync(join(ROOT, 'package.json.packing')), 'package.json restored');
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball !== undefined);

  const prefix = join(work, 'prefix');
  const install = run(npm, ['install', '--global', '--prefix', prefix, '--offline', join(work, tarball)], work, env);
  assert.equal(install.status, 0, install.stderr);
  assert.deepEqual(ours(install.stderr), [], 'warnings from the install');
  const pkg = join(prefix, 'lib', 'node_modules', 'msgr');
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { scripts?: Record<string, string>; dependencies?: unknown; bugs: { url: string }; repository: { url: string }; homepage: string; version: string };
  assert.equal(manifest.scripts?.prepare, undefined);
  assert.equal(manifest.dependencies, undefined);
  assert.equal(manifest.bugs.url, 'https://github.com/msgr-cli/msgr/issues');
  assert.match(manifest.repository.url, /github\.com\/msgr-cli\/msgr/);
  assert.match(manifest.homepage, /^https:\/\/github\.com\/msgr-cli\/msgr/);
  // Only msgr itself was installed: dist/ carries its dependencies.
  assert.deepEqual(readdirSync(join(prefix, 'lib', 'node_modules')), ['msgr']);
  assert.ok(!existsSync(join(pkg, 'node_modules')));
  // What the README links, the licence and the notices travel with it; no code caches of this machine.
  for (const f of ['LICENSE', 'README.md', 'THIRD-PARTY-NOTICES.md', 'docs/sandbox.md']) assert.ok(existsSync(join(pkg, f)), f);
  for (const link of readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/\]\(((?!https?:|#)[^)#\s]+)/g)) assert.ok(existsSync(join(pkg, link[1]!)), `README links ${link[1]!}`);
  assert.match(readFileSync(join(pkg, 'LICENSE'), 'utf8'), /^MIT License/);
  assert.ok(!existsSync(join(pkg, 'dist', 'cache')));
  const notices = run(process.execPath, ['scripts/notices.mjs', '--check'], ROOT, env);
  assert.equal(notices.status, 0, notices.stderr);

  const bin = join(prefix, 'bin', 'msgr');
  const elsewhere = tempDir('msgr-elsewhere-');
  const userEnv = cleanEnv({ MSGR_CONFIG_DIR: join(elsewhere, 'config') });
  const version = run(bin, ['--version'], elsewhere, userEnv);
  assert.equal(version.stdout, `${manifest.version}\n`);
  const help = run(bin, ['help', 'environment'], elsewhere, userEnv);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /MSGR_API_KEY/);
  const sent = run(bin, ['send', '--sandbox', '--to', '+447911123456', '--from', 'Acme', '--text', 'Hello', '--json'], elsewhere, userEnv);
  assert.equal(sent.status, 0, sent.stderr);
  assert.equal((JSON.parse(sent.stdout) as { status: string }).status, 'accepted');
  const segments = run(bin, ['segments', 'It’s here'], elsewhere, userEnv);
  assert.match(segments.stdout, /^encoding {4}UCS-2/m);
  const profile = run(bin, ['profile', 'add', 'p', '--api-key-stdin', '--account', 'A', '--base-url', 'https://api.example.com'], elsewhere, userEnv);
  assert.equal(profile.status, 2, 'stdin is empty: no key');
  assert.match(profile.stderr, /no key on stdin/);

  // `man msgr` after a global install: npm links every page of "man" into <prefix>/share/man/man1.
  const manDir = join(prefix, 'share', 'man');
  const pages = (manifest as { man?: string[] }).man ?? [];
  for (const page of ['msgr.1', 'msgr-send.1', 'msgr-send-bulk.1', 'msgr-profile-add.1']) assert.ok(pages.some((p) => p.endsWith(`/${page}`)), `package.json "man" lacks ${page}`);
  for (const page of pages) assert.ok(existsSync(join(manDir, 'man1', basename(page))), `${page} is not installed in ${manDir}/man1`);
  const manEnv = { ...userEnv, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80', LANG: 'C.UTF-8' };
  const hasMan = spawnSync('man', ['--version'], { encoding: 'utf8' }).status === 0;
  const hasGroff = spawnSync('groff', ['--version'], { encoding: 'utf8' }).status === 0;
  const render = (name: string): { status: number | null; stdout: string; stderr: string } =>
    hasMan ? run('man', ['-M', manDir, name], elsewhere, manEnv) : run('groff', ['-man', '-Tutf8', '-P', '-cbou', join(manDir, 'man1', `${name}.1`)], elsewhere, manEnv);
  if (hasMan || hasGroff) {
    const top = render('msgr');
    assert.equal(top.status, 0, top.stderr);
    assert.match(top.stdout, /^NAME\n {7}msgr - Send SMS and RCS messages/m);
    assert.match(top.stdout, /msgr-send-bulk\(1\)/);
    assert.match(top.stdout, /^EXIT STATUS$/m);
    const bulk = render('msgr-send-bulk');
    assert.equal(bulk.status, 0, bulk.stderr);
    // Options as typed: ASCII minus signs, never a hyphenated --resume.
    assert.match(bulk.stdout, /^ {7}--resume$/m);
    assert.match(bulk.stdout, /^ {3}Runs and reports$/m);
  } else {
    console.log('# man and groff are not installed: the man pages were checked as installed files only');
  }
});
