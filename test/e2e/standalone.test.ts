// msgr where little is given: what `--version` says about the install, no HOME (cron, `env -i`,
// a container's numeric user), worker threads that must really start (a worker that fails is
// replaced by the main thread without a word, so only counting them shows it), and, against the
// single executable file (`npm run test:exe`), the binary copied alone into an empty folder.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { EXE, MSGR, ROOT, cleanEnv, msgrCommand, runCli, tempDir } from '../support/cli.js';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
// Another user, no HOME: setpriv (util-linux) as root, which CI is, where that user can read
// msgr (a checkout under a private home folder is not readable by others).
function asOtherUser(uid: number): string | false {
  if (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0) return 'needs root and setpriv (util-linux) to run as another user';
  const files = EXE !== undefined ? [EXE] : [...MSGR.slice(1), join(ROOT, 'package.json'), join(ROOT, 'dist', 'msgr.cjs')];
  const readable = spawnSync('setpriv', ['--reuid', String(uid), '--regid', String(uid), '--clear-groups', 'sh', '-c', 'for f; do test -r "$f" || exit 1; done', 'sh', ...files]).status === 0;
  return readable ? false : `user ${uid} cannot read ${files.join(', ')}`;
}
const MSG = ['--from', 'Acme', '--text', 'Hi'];

/** Rows of valid UK mobile numbers, with a name column. */
function csv(rows: number): string {
  const lines = ['msisdn,name'];
  for (let i = 0; i < rows; i++) lines.push(`+447911${String(100000 + i).padStart(6, '0')},Customer ${i}`);
  return `${lines.join('\n')}\n`;
}

test('--version prints the version alone on a pipe, as scripts read it; on a terminal, or with --verbose, a second line says how msgr was installed', async () => {
  const piped = await runCli(['--version']);
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, `${version}\n`);
  assert.equal(piped.stderr, '');
  const how = EXE !== undefined
    ? `single executable file for ${process.platform}-${process.arch}, Node ${process.versions.node} inside: ${EXE}`
    : `run from a checkout (node bin/msgr.js), on Node ${process.versions.node}: ${ROOT}`;
  // A script or an ssh line asks which install runs with --verbose.
  for (const args of [['--version', '--verbose'], ['--verbose', '-V']]) {
    const verbose = await runCli(args);
    assert.equal(verbose.code, 0, verbose.stderr);
    assert.equal(verbose.stdout, `${version}\n${how}\n`, args.join(' '));
  }
  if (!hasScript) return;
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const tty = spawnSync('script', ['-qec', `exec ${[...MSGR, '--version'].map(quote).join(' ')}`, '/dev/null'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }), encoding: 'utf8', timeout: 20_000 });
  assert.equal(tty.status, 0, tty.stderr);
  const lines = tty.stdout.split(/\r?\n/);
  assert.equal(lines[0], version);
  assert.equal(lines[1], how);
});

test('without HOME and without a home in the password database, msgr says so and how to fix it; with MSGR_CONFIG_DIR it sends', { skip: asOtherUser(4242) }, () => {
  const dir = tempDir();
  // The other user makes its state folder here.
  chmodSync(dir, 0o777);
  const file = join(dir, 'list.csv');
  writeFileSync(file, csv(3));
  const stranger = (args: string[], env: Record<string, string> = {}): ReturnType<typeof spawnSync> =>
    spawnSync('setpriv', ['--reuid', '4242', '--regid', '4242', '--clear-groups', ...MSGR, ...args], { cwd: dir, env: { NO_COLOR: '1', ...env }, encoding: 'utf8', timeout: 20_000 });
  for (const args of [['send', '--sandbox', '--to', '+447911123456', ...MSG], ['send-bulk', file, '--sandbox', ...MSG, '--yes']]) {
    const r = stranger(args);
    assert.equal(r.status, 2, String(r.stderr));
    assert.match(String(r.stderr), /^error: msgr has no folder for its profiles and bulk runs: HOME is not set, and this user has no home folder in the password database; nothing was sent\nhint: Set MSGR_CONFIG_DIR to a folder this user can write to/m);
    assert.doesNotMatch(String(r.stderr), /internal error|bug in msgr|uv_os_homedir/);
  }
  const config = join(dir, 'config');
  const made = stranger(['send-bulk', file, '--sandbox', ...MSG, '--yes', '--json'], { MSGR_CONFIG_DIR: config });
  assert.equal(made.status, 0, String(made.stderr));
  assert.equal((JSON.parse(String(made.stdout)) as { accepted: number }).accepted, 3);
  assert.deepEqual(readdirSync(join(config, 'sandbox', 'runs')).length, 1);
});

test('without HOME, a user\'s state goes under the home the password database gives (nobody: /nonexistent, which it cannot create)', { skip: asOtherUser(65534) }, () => {
  const dir = tempDir();
  chmodSync(dir, 0o755);
  const file = join(dir, 'list.csv');
  writeFileSync(file, csv(2));
  const r = spawnSync('setpriv', ['--reuid', '65534', '--regid', '65534', '--clear-groups', ...MSGR, 'send-bulk', file, '--sandbox', ...MSG, '--yes'], { cwd: dir, env: { NO_COLOR: '1' }, encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /cannot create the folder \/nonexistent\b.*nothing was sent/);
});

test('msgr sandbox starts its worker threads and they stay up through a body big enough for them', async (t) => {
  const child = spawn(...msgrCommand(['sandbox', '--port', '0', '--threads', '2', '-q']), { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }), stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('\n')) resolve(out.trim());
      });
      child.on('close', (code) => reject(new Error(`sandbox exited (${code})`)));
    });
    // ~60 KB: over the size the server hands to its workers (POOL_MIN_BYTES, src/sandbox/server.ts).
    const recipients = Array.from({ length: 1500 }, (_, i) => ({ msisdn: `+447911${String(200000 + i).padStart(6, '0')}` }));
    const res = await fetch(`${url}/v2/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k-standalone-1' }, body: JSON.stringify({ accountReference: 'A', channel: 'SMS', from: 'Acme', body: { text: 'Hi' }, recipients }) });
    assert.equal(res.status, 202);
    assert.equal(((await res.json()) as { messages: unknown[] }).messages.length, 1500);
    // Node names each worker's OS thread WorkerThread (Node 20 names every thread `node`).
    const names = readdirSync(`/proc/${child.pid}/task`).map((task) => readFileSync(`/proc/${child.pid}/task/${task}/comm`, 'utf8').trim());
    if (names.every((n) => n === 'node')) t.diagnostic(`Node ${process.versions.node} gives its threads no names: the workers are not counted`);
    else assert.equal(names.filter((n) => n === 'WorkerThread').length, 2, names.join(', '));
  } finally {
    child.kill('SIGKILL');
  }
});

test('the binary copied alone into an empty folder, with no PATH and no HOME: a sandbox send, and a send-bulk whose preflight runs in two worker threads', { skip: EXE === undefined && 'runs against the single executable file: npm run test:exe' }, () => {
  const dir = tempDir();
  const exe = join(dir, basename(EXE ?? 'msgr'));
  copyFileSync(EXE ?? '', exe);
  chmodSync(exe, 0o755);
  writeFileSync(join(dir, 'big.csv'), csv(2000));
  assert.deepEqual(readdirSync(dir).sort(), ['big.csv', basename(exe)].sort());
  // No PATH, no HOME, no Node: the state folder is named (the default one is the builder's own home).
  const env = { MSGR_CONFIG_DIR: join(dir, 'state') };
  const one = spawnSync(exe, ['send', '--sandbox', '--to', '+447911123456', ...MSG, '--json'], { cwd: dir, env, encoding: 'utf8', timeout: 20_000 });
  assert.equal(one.status, 0, one.stderr);
  assert.equal((JSON.parse(one.stdout) as { status: string }).status, 'accepted');
  // Split at any size (MSGR_BULK_PARALLEL_MIN_BYTES=0): the preflight's workers run from the binary.
  const bulk = spawnSync(exe, ['send-bulk', 'big.csv', '--sandbox', ...MSG, '--yes', '--verbose', '--batch-size', '500'], { cwd: dir, env: { ...env, MSGR_BULK_PARALLEL_MIN_BYTES: '0' }, encoding: 'utf8', timeout: 60_000 });
  assert.equal(bulk.status, 0, bulk.stderr);
  assert.match(bulk.stderr, /^preflight: two threads, the second from line \d+$/m);
  assert.doesNotMatch(bulk.stderr, /worker thread failed/);
  assert.match(bulk.stderr, /^ok: 2,000 of 2,000 recipients accepted/m);
});

test('npm run build:exe on a Node older than 25.5 builds nothing and says which Node to run it with', async (t) => {
  const { exeNodeProblem } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build', 'exe.mjs')).href)) as { exeNodeProblem: (version?: string) => string | undefined };
  for (const v of ['25.5.0', '25.9.1', '26.10.0', '27.0.0']) assert.equal(exeNodeProblem(v), undefined, v);
  for (const v of ['20.18.1', '24.21.0', '25.4.0']) {
    const said = exeNodeProblem(v) ?? '';
    assert.match(said, new RegExp(`^build:exe: Node ${v.replace(/\./g, '\\.')} cannot build the single executable file: \`node --build-sea\` is in Node 25\\.5 and later`));
    assert.match(said, /^ {2}npx -y node@26 scripts\/build\.mjs --exe$/m);
  }
  if (exeNodeProblem() === undefined) {
    t.diagnostic(`Node ${process.versions.node} builds the binary: what an older Node says is checked above only`);
    return;
  }
  // This Node is too old: the script stops before it builds anything.
  const r = spawnSync(process.execPath, ['scripts/build.mjs', '--exe', '--out', join(tempDir(), 'dist')], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `${exeNodeProblem() ?? ''}\n`);
});
