#!/usr/bin/env node
// msgr performance bench. `npm run bench [-- flags]`; see the README, "Performance".
//
// Sections (all by default; pick with --only a,b):
//   startup   cold start with hyperfine against `node -e 0` in the same run
//   bulk      send-bulk throughput vs csv-parse's raw parse rate, plus curl baselines
//   memory    peak RSS of the bulk run (and of a 10M-row run with --big)
//   rate      --rate 500/s for 20 s against the sandbox's record file
//   personalised  a message per row: 100,000 different messages at concurrency 16 against a bare
//             undici Pool posting the same bodies; peak RSS of 1,000,000 personalised rows
//
// It builds dist/ when it is stale, generates its own data in bench/.data/ (gitignored),
// starts and stops its own servers, prints one table and writes bench/.data/results.md and
// results.json. A missed target is a result, not a failure: the exit code is 0 unless the bench
// itself broke (1) or was interrupted (130).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { setInterval, clearInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { trickRows, trickVariants } from './tricks.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BENCH = join(ROOT, 'bench');
const DATA = join(BENCH, '.data');
// BENCH_MSGR_BIN measures another entry point (another checkout, a stub for testing the bench).
const MSGR = process.env.BENCH_MSGR_BIN !== undefined ? resolve(process.env.BENCH_MSGR_BIN) : join(ROOT, 'bin', 'msgr.js');
const NODE = process.execPath;
const API_KEY = 'bench-key-0000';
const ACCOUNT = 'ACME01';
const SECTIONS = ['startup', 'bulk', 'memory', 'rate', 'personalised'];
const MB = 1e6; // targets are read as decimal megabytes (10^6 bytes), the stricter reading

// ---------------------------------------------------------------------------------------------
// Options

const USAGE = `usage: npm run bench -- [options]
  --only <list>       sections to run, comma separated: ${SECTIONS.join(',')} (default: all)
  --quick             smoke mode: 5 hyperfine runs, 20,000 bulk rows, 200 baseline rows, 5 s rate test
  --rows <n>          rows for the bulk throughput run (default 1,000,000)
  --big               also run the 10,000,000-row memory check (takes minutes and ~400 MB of disk)
  --runs <n>          hyperfine runs per command (default 20)
  --baseline-rows <n> rows for the curl baselines (default 2,000)
  --rate-seconds <n>  length of the rate test (default 20)
  --rounds <n>        hyperfine rounds over all start-up commands; the median round counts (default 3)
  --tricks            start-up: also time each start-up trick switched off and on (bench/tricks.mjs)
  --bulk-args <args>  extra flags for every send-bulk run, space separated
  --bulk-runs <n>     send-bulk throughput runs, each after its own csv-parse run; the median counts (default 3)
  --personal-rows <n> rows for the personalised throughput run (default 100,000)
  --build / --no-build  force / skip the build (default: build when dist/ is older than src/ or has no code caches for this Node)
  --keep              keep the temporary folder (servers' certs, records, send-bulk output)
  -h, --help          this text`;

const { values: opt } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    rows: { type: 'string' },
    big: { type: 'boolean', default: false },
    runs: { type: 'string' },
    'baseline-rows': { type: 'string' },
    'rate-seconds': { type: 'string' },
    'bulk-args': { type: 'string' },
    'bulk-runs': { type: 'string' },
    'personal-rows': { type: 'string' },
    rounds: { type: 'string' },
    tricks: { type: 'boolean', default: false },
    build: { type: 'boolean' },
    'no-build': { type: 'boolean' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowPositionals: false,
});
if (opt.help) {
  console.log(USAGE);
  process.exit(0);
}

function intOpt(name, fallback) {
  const raw = opt[name];
  if (raw === undefined) return fallback;
  const n = Number(String(raw).replace(/[_,]/g, ''));
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`bench: --${name} must be a positive integer (got ${raw})`);
    process.exit(2);
  }
  return n;
}

const quick = opt.quick;
const only = opt.only !== undefined ? opt.only.split(',').map((s) => s.trim()).filter(Boolean) : SECTIONS;
for (const s of only) {
  if (!SECTIONS.includes(s)) {
    console.error(`bench: unknown section "${s}" (sections: ${SECTIONS.join(', ')})`);
    process.exit(2);
  }
}
const cfg = {
  runs: intOpt('runs', quick ? 5 : 20),
  warmup: quick ? 1 : 3,
  rows: intOpt('rows', quick ? 20_000 : 1_000_000),
  bigRows: 10_000_000,
  baselineRows: intOpt('baseline-rows', quick ? 200 : 2_000),
  bulkRuns: intOpt('bulk-runs', quick ? 1 : 3),
  rounds: intOpt('rounds', quick ? 1 : 3),
  rate: 500,
  rateSeconds: intOpt('rate-seconds', quick ? 5 : 20),
  rateBatch: 10,
  personalRows: intOpt('personal-rows', quick ? 5_000 : 100_000),
  personalConcurrency: 16,
  bulkArgs: opt['bulk-args'] !== undefined ? opt['bulk-args'].split(/\s+/).filter(Boolean) : [],
};

// ---------------------------------------------------------------------------------------------
// Results

/** @type {Array<{section: string, figure: string, measured: string, target: string, baseline: string, status: string}>} */
const rows = [];
const notes = [];
function row(section, figure, measured, target, baseline, status) {
  rows.push({ section, figure, measured, target, baseline, status });
  console.error(`  ${status.padEnd(5)} ${figure}: ${measured}${target !== '' ? `  (target ${target})` : ''}`);
}
function note(text) {
  notes.push(text);
  console.error(`  note: ${text}`);
}
const passMiss = (ok) => (ok ? 'pass' : 'miss');
const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmtMs = (s) => `${(s * 1000).toFixed(1)} ms`;
const fmtMB = (bytes) => `${(bytes / MB).toFixed(1)} MB`;

// ---------------------------------------------------------------------------------------------
// Processes: everything started here is tracked and killed on the way out.

const children = new Set();
function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}
function killAll() {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    console.error(`\nbench: ${sig}, stopping`);
    killAll();
    process.exit(130);
  });
}

const TMP = mkdtempSync(join(tmpdir(), 'msgr-bench-'));
const CONFIG_DIR = join(TMP, 'config');
mkdirSync(CONFIG_DIR, { recursive: true });

/** The environment every msgr run gets: nothing MSGR_* or NODE_* from the caller's shell. */
function benchEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('MSGR_') || k.startsWith('NODE_') || k === 'FORCE_COLOR' || /^(https?|no)_proxy$/i.test(k)) continue;
    if (k.startsWith('npm_')) continue; // `npm run` adds ~100 of these; keep the env like a shell's
    env[k] = v;
  }
  return { ...env, NO_COLOR: '1', MSGR_CONFIG_DIR: CONFIG_DIR, MSGR_API_KEY: API_KEY, ...extra };
}

function tail(text, n = 600) {
  const t = text.trim();
  return t.length > n ? `…${t.slice(-n)}` : t;
}

/**
 * Runs a command to completion. stdout goes to `stdoutFile` when given (send-bulk --json can be
 * large), else it is captured (last 1 MB). Resolves with code, signal, output and wall time.
 */
function runCmd(cmd, args, { env = benchEnv(), stdoutFile, timeoutMs, onSpawn, cwd = ROOT } = {}) {
  return new Promise((resolvePromise, reject) => {
    const outFd = stdoutFile !== undefined ? openSync(stdoutFile, 'w') : undefined;
    const start = performance.now();
    const child = track(spawn(cmd, args, { cwd, env, stdio: ['ignore', outFd ?? 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
      if (stdout.length > 2e6) stdout = stdout.slice(-1e6);
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      if (stderr.length > 2e6) stderr = stderr.slice(-1e6);
    });
    let timer;
    if (timeoutMs !== undefined) {
      timer = globalThis.setTimeout(() => {
        stderr += `\n[bench: timed out after ${timeoutMs} ms, sent SIGINT]`;
        child.kill('SIGINT');
        globalThis.setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }, timeoutMs);
    }
    child.on('error', (err) => {
      if (outFd !== undefined) closeSync(outFd);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      const ms = performance.now() - start;
      if (timer !== undefined) clearTimeout(timer);
      if (outFd !== undefined) closeSync(outFd);
      // Let the pipes drain before resolving.
      globalThis.setImmediate(() => resolvePromise({ code, signal, stdout, stderr, ms, pid: child.pid }));
    });
    onSpawn?.(child);
  });
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0;
}

/** Starts a child that prints a URL (or port) on its first stdout line; resolves with it. */
function startServer(cmd, args, { env = benchEnv(), match, name }) {
  return new Promise((resolvePromise, reject) => {
    const child = track(spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    let err = '';
    let done = false;
    const finish = (value, error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error !== undefined) {
        child.kill('SIGKILL');
        reject(error);
      } else resolvePromise({ child, value, stderr: () => err, stop: () => stopChild(child) });
    };
    const timer = globalThis.setTimeout(() => finish(undefined, new Error(`${name} did not start within 15 s: ${tail(err || out)}`)), 15_000);
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        const m = match(line);
        if (m !== undefined) finish(m);
      }
    });
    child.stderr.on('data', (d) => {
      err += d;
      const m = /https?:\/\/127\.0\.0\.1:\d+/.exec(err);
      if (m !== null && name === 'sandbox') finish(m[0]);
    });
    child.on('exit', (code) => finish(undefined, new Error(`${name} exited (${code}) before it listened: ${tail(err || out)}`)));
  });
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = globalThis.setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(t);
}

function startSandbox(extraArgs = []) {
  return startServer(NODE, [MSGR, 'sandbox', '--port', '0', '-q', ...extraArgs], {
    name: 'sandbox',
    match: (line) => /^https?:\/\/\S+$/.test(line.trim()) ? line.trim() : undefined,
  });
}

// ---------------------------------------------------------------------------------------------
// Build

function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

function ensureBuilt() {
  const main = join(ROOT, 'dist', 'msgr.cjs');
  const built = existsSync(main) ? statSync(main).mtimeMs : 0;
  const sources = Math.max(newestMtime(join(ROOT, 'src')), newestMtime(join(ROOT, 'scripts')), newestMtime(join(ROOT, 'bin')), statSync(join(ROOT, 'package.json')).mtimeMs);
  // The build makes V8 code caches for the Node that runs it only (README, "Performance"): a
  // dist/ built by another Node is measured without them, so it counts as stale here.
  const caches = existsSync(join(ROOT, 'dist', 'cache')) ? readdirSync(join(ROOT, 'dist', 'cache')) : [];
  const stale = built < sources || !caches.includes(`v8-${process.versions.v8}`);
  if (opt['no-build'] === true) {
    if (built === 0) throw new Error('dist/msgr.cjs is missing and --no-build was given: run npm run build');
    if (stale) note('dist/ is older than src/ (--no-build): measuring the existing bundle');
    return;
  }
  if (!stale && opt.build !== true) {
    console.error('bench: dist/ is up to date');
    return;
  }
  // With this Node, not npm's (PATH's), which may be another version.
  console.error(`bench: node scripts/build.mjs (Node ${process.versions.node})`);
  const r = spawnSync(NODE, ['scripts/build.mjs'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    if (built === 0) throw new Error('the build failed and there is no dist/ to measure');
    note('the build failed (work in progress elsewhere in the tree?): measuring the previous dist/');
  }
}

// ---------------------------------------------------------------------------------------------
// Data: deterministic CSVs of unique, valid mobile numbers (checked with libphonenumber-js/max).
// Row i goes to country i % 3; k = floor(i / 3) is scrambled by a bijection inside each range
// so numbers are not sequential. Capacity: 15M rows (the UK ranges run out first).

const GEN_VERSION = 'v1';
const UK_PREFIXES = ['7912', '7913', '7914', '7915', '7916']; // +44 79xx xxxxxx, 10^6 each
const NAMES = ['Ann', 'Bob', 'Chloé', 'Dev', 'Eve', 'Finn', 'Gül', 'Hana'];
const MAX_ROWS = UK_PREFIXES.length * 1e6 * 3;

function numberFor(i) {
  const k = Math.floor(i / 3);
  switch (i % 3) {
    case 0: {
      const prefix = UK_PREFIXES[Math.floor(k / 1e6)];
      return `+44${prefix}${String(((k % 1e6) * 7919 + 12345) % 1e6).padStart(6, '0')}`;
    }
    case 1:
      return `+49151${String((k * 7919 + 4242) % 1e8).padStart(8, '0')}`;
    default:
      return `+3361${String((k * 7919 + 777) % 1e7).padStart(7, '0')}`;
  }
}

/** bench/.data/bulk-<n>.csv: header msisdn,name,code; reused when a complete one exists. */
function csvFile(n) {
  if (n > MAX_ROWS) throw new Error(`the data generator has unique numbers for ${fmtInt(MAX_ROWS)} rows at most (asked for ${fmtInt(n)})`);
  mkdirSync(DATA, { recursive: true });
  const file = join(DATA, `bulk-${n}.csv`);
  const marker = `${file}.ok`;
  if (existsSync(file) && existsSync(marker) && readFileSync(marker, 'utf8') === `${GEN_VERSION} ${statSync(file).size}`) return file;
  const t0 = performance.now();
  const fd = openSync(file, 'w');
  writeSync(fd, 'msisdn,name,code\n');
  const chunk = 50_000;
  for (let start = 0; start < n; start += chunk) {
    let s = '';
    const end = Math.min(n, start + chunk);
    // code keeps its leading zeros: a CSV reader that casts would turn 000042 into 42.
    for (let i = start; i < end; i++) s += `${numberFor(i)},${NAMES[i % NAMES.length]}${i},${String((i * 31337) % 1e6).padStart(6, '0')}\n`;
    writeSync(fd, s);
  }
  closeSync(fd);
  writeFileSync(marker, `${GEN_VERSION} ${statSync(file).size}`);
  console.error(`bench: wrote ${file} (${fmtInt(n)} rows, ${fmtMB(statSync(file).size)}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return file;
}

/** Reads a file once so the parse baseline and msgr both start from the page cache. */
async function warmCache(file) {
  let bytes = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) bytes += chunk.length;
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Feature detection: send-bulk and the sandbox land in parallel with this bench.

const helpCache = new Map();
function commandHelp(command) {
  if (!helpCache.has(command)) {
    const r = spawnSync(NODE, [MSGR, command, '--help'], { cwd: ROOT, env: benchEnv(), encoding: 'utf8', timeout: 30_000 });
    // An unknown command's --help prints the program's help with exit 0: look for its own usage line.
    const ok = r.status === 0 && new RegExp(`Usage: msgr ${command}\\b`).test(r.stdout);
    helpCache.set(command, ok ? r.stdout : undefined);
  }
  return helpCache.get(command);
}
const hasFlag = (help, flag) => help !== undefined && new RegExp(`(^|[\\s,])${flag}\\b`, 'm').test(help);

// ---------------------------------------------------------------------------------------------
// Section: start-up

function shellQuote(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function median(values) {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid) ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[Math.floor(mid)];
}

/** The list in an order of its own for each round (round 1: as given). */
function shuffled(list, round) {
  const out = [...list];
  let seed = round * 2654435761;
  for (let i = out.length - 1; i > 0 && round > 1; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

async function sectionStartup() {
  console.error('\n== start-up (hyperfine) ==');
  if (!hasCommand('hyperfine')) {
    row('startup', 'cold start', 'not measured', '', '', 'skip');
    note('hyperfine is missing: install it with `sudo apt-get install -y hyperfine` (Debian/Ubuntu), then run `npm run bench -- --only startup`');
    return;
  }
  const msg = ['--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--account', ACCOUNT];
  // Node 20 (end of life) may take longer for the dry run.
  const node20 = Number(process.versions.node.split('.')[0]) < 22;
  /** @type {Array<{name: string, argv: string[], target?: number, targetOf?: string, baselineOf?: string}>} */
  const cmds = [
    { name: 'node -e 0', argv: [NODE, '-e', '0'] },
    { name: 'msgr --version', argv: [NODE, MSGR, '--version'], target: 1.2 },
    { name: 'msgr --help', argv: [NODE, MSGR, '--help'], target: 1.3 },
    { name: 'msgr send --dry-run', argv: [NODE, MSGR, 'send', '--dry-run', ...msg], target: node20 ? 1.8 : 1.6 },
  ];

  let https;
  if (hasCommand('openssl')) {
    const cert = join(TMP, 'cert.pem');
    const key = join(TMP, 'key.pem');
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { encoding: 'utf8' });
    if (r.status !== 0) note(`openssl could not make a certificate: ${tail(r.stderr)}`);
    else {
      https = await startServer(NODE, [join(BENCH, 'https-server.mjs'), cert, key], { name: 'https-server', match: (line) => (/^\d+$/.test(line.trim()) ? line.trim() : undefined) });
      const base = `https://localhost:${https.value}`;
      const floor = 'node https.request (floor)';
      cmds.push({ name: 'msgr send (HTTPS)', argv: [NODE, MSGR, 'send', ...msg, '--base-url', base, '--ca-file', cert], target: 1.25, targetOf: floor });
      // The floor for one HTTPS POST: what a user with curl pays.
      const body = JSON.stringify({ accountReference: ACCOUNT, channel: 'SMS', from: 'Acme', body: { text: 'hi' }, recipients: [{ msisdn: '+447911123456' }] });
      // The floor for any Node program: one bare node:https POST (Node 20 builds its root store
      // for any verified TLS context, ~30 ms here, and loads tls, crypto and http).
      cmds.push({ name: floor, argv: [NODE, join(BENCH, 'https-floor.cjs'), base, cert, API_KEY, body], baselineOf: 'msgr send (HTTPS)' });
      if (hasCommand('curl')) {
        cmds.push({ name: 'curl POST (HTTPS)', argv: ['curl', '-sS', '-o', '/dev/null', '--cacert', cert, '-X', 'POST', '-H', `X-Api-Key: ${API_KEY}`, '-H', 'Content-Type: application/json', '--data', body, `${base}/v2/messages`], baselineOf: 'msgr send (HTTPS)' });
      }
    }
  } else note('openssl is missing: the real HTTPS send is not measured');

  let variants = [];
  if (opt.tricks) {
    console.error('bench: building an install per trick variant in bench/.data/tricks/');
    const commands = Object.fromEntries(cmds.filter((c) => c.argv[1] === MSGR).map((c) => [c.name, c.argv.slice(2)]));
    variants = trickVariants({ root: ROOT, data: DATA, node: NODE, msgr: MSGR, commands });
    cmds.push(...variants);
  }
  // Run each command once first: a broken command would make hyperfine abort the whole run.
  const env = benchEnv();
  const working = [];
  for (const c of cmds) {
    const r = spawnSync(c.argv[0], c.argv.slice(1), { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0) working.push(c);
    else row('startup', `cold start: ${c.name}`, `broken (exit ${r.status ?? r.signal})`, c.target !== undefined ? `<= ${c.target}x node -e 0` : '', tail(r.stderr, 200).replace(/\n/g, ' '), 'error');
  }
  // Several hyperfine runs ("rounds") of all commands: on a shared 2-core machine the speed
  // drifts while one command's runs are timed, so one round can favour or penalise a command by a
  // tenth. Each round's ratios are taken within the round; the figure is the median round's.
  const rounds = [];
  for (let round = 1; round <= cfg.rounds; round++) {
    const json = join(TMP, `hyperfine-${round}.json`);
    // Every command ran once above; with one run per round, no warm-up either.
    const args = ['-N', '--warmup', String(cfg.runs === 1 ? 0 : cfg.warmup), '--runs', String(cfg.runs), '--export-json', json, '--style', 'basic'];
    // Each round in another order, so a machine slowing down (or speeding up) during a round
    // does not always favour the same commands.
    for (const c of shuffled(working, round)) args.push('-n', c.name, c.argv.map(shellQuote).join(' '));
    console.error(`bench: hyperfine round ${round} of ${cfg.rounds}, ${working.length} commands × ${cfg.runs} runs`);
    // hyperfine's own report goes to stderr so stdout carries only the table.
    const r = spawnSync('hyperfine', args, { cwd: ROOT, env, stdio: ['ignore', 2, 2] });
    if (r.status !== 0) {
      await https?.stop();
      throw new Error(`hyperfine failed (exit ${r.status})`);
    }
    const results = new Map(JSON.parse(readFileSync(json, 'utf8')).results.map((x) => [x.command, x]));
    if (!results.has('node -e 0')) throw new Error('hyperfine has no result for node -e 0');
    rounds.push(results);
  }
  await https?.stop();

  // Each command's time is its median over the rounds (every round runs every command, in
  // shuffled order); a figure is that over the median of `node -e 0`, or of its own floor
  // (targetOf). Each round's own ratio is printed beside it.
  const wall = (name) => median(rounds.filter((x) => x.has(name)).map((x) => x.get(name).median));
  const ratioIn = (results, c) => {
    const m = results.get(c.name);
    const base = results.get(c.targetOf ?? 'node -e 0');
    return m === undefined || base === undefined ? undefined : m.median / base.median;
  };
  const base = wall('node -e 0');
  for (const c of working) {
    if (c.target === undefined) continue;
    const m = wall(c.name);
    const of = c.targetOf !== undefined ? wall(c.targetOf) : base;
    if (m === undefined || of === undefined) continue;
    const ratio = m / of;
    const extras = working.filter((b) => b.baselineOf === c.name).flatMap((b) => {
      const bm = wall(b.name);
      return bm === undefined ? [] : [`${b.name}: ${fmtMs(bm)} (${(bm / base).toFixed(2)}x node -e 0)`];
    });
    const baseline = [`node -e 0: ${fmtMs(base)}`, ...(c.targetOf !== undefined ? [`msgr: ${fmtMs(m)}, ${(m / base).toFixed(2)}x node -e 0`] : []), ...extras].join('; ');
    const spread = rounds.length > 1 ? `; rounds ${rounds.map((x) => ratioIn(x, c)?.toFixed(2) ?? '-').join(', ')}` : '';
    row('startup', `cold start: ${c.name}`, `${ratio.toFixed(2)}x (${fmtMs(m)}${spread})`, `<= ${c.target}x ${c.targetOf ?? 'node -e 0'}`, baseline, passMiss(ratio <= c.target));
  }
  if (variants.length > 0) trickRows(variants.filter((v) => working.includes(v)), rounds, (figure) => figure, row, note);
  note(`start-up: ${cfg.rounds} round${cfg.rounds === 1 ? '' : 's'} of hyperfine -N (no shell) over all commands in a shuffled order, each ${cfg.runs === 1 ? 'one run' : `a median of ${cfg.runs} runs after ${cfg.warmup} warm-up runs`}; a figure is the command's median over the rounds against node -e 0's (or the floor's); every round's own ratio is listed`);
}

// ---------------------------------------------------------------------------------------------
// Section: bulk throughput (+ curl baselines)

function parseTimeV(text) {
  const m = /Maximum resident set size \(kbytes\):\s*(\d+)/.exec(text);
  return m !== null ? Number(m[1]) * 1024 : undefined;
}

/** Polls VmHWM of a pid (the fallback when /usr/bin/time is missing). */
function pollHwm(pid) {
  let peak = 0;
  const read = () => {
    try {
      const m = /VmHWM:\s*(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m !== null) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // process gone
    }
  };
  const t = setInterval(read, 20);
  read();
  return () => {
    clearInterval(t);
    return peak;
  };
}

function bulkArgs(help, file, baseUrl, extra) {
  const args = [MSGR, 'send-bulk', file, '--from', 'Acme', '--text', 'Hi {{name}}', '--account', ACCOUNT, '--base-url', baseUrl];
  if (hasFlag(help, '--json')) args.push('--json');
  if (hasFlag(help, '--journal')) args.push('--journal', join(TMP, `journal-${Date.now()}`));
  // The issue's command has no --report; add one with --bulk-args '--report FILE.csv' to measure
  // the report path (it reads and parses every answer for message ids).
  if (hasFlag(help, '--yes')) args.push('--yes');
  // One shared text with the columns as variables, as this figure has always measured (msgr
  // now fills {{name}} in per row unless told not to; the personalised section measures that).
  if (hasFlag(help, '--no-render')) args.push('--no-render');
  return [...args, ...extra, ...cfg.bulkArgs];
}

const bulkRuns = new Map();

/**
 * send-bulk of n rows under /usr/bin/time -v: wall time, peak RSS, exit code. The throughput run
 * is repeated (--bulk-runs), each time right after its own csv-parse run so both see the same
 * load on this 2-core machine; the run with the median ratio counts, and peak RSS is the highest.
 */
function bulkRun(n) {
  if (!bulkRuns.has(n)) bulkRuns.set(n, doBulkRuns(n));
  return bulkRuns.get(n);
}

async function doBulkRuns(n) {
  const help = commandHelp('send-bulk');
  if (help === undefined) return { skipped: '`msgr send-bulk` is not there yet (`node bin/msgr.js send-bulk --help` shows no send-bulk usage)' };
  if (commandHelp('sandbox') === undefined) return { skipped: '`msgr sandbox` is not there yet' };
  const file = csvFile(n);
  await warmCache(file);
  const repeats = n === cfg.rows ? cfg.bulkRuns : 1;
  const runs = [];
  for (let i = 0; i < repeats; i++) {
    const r = await doBulkRun(n, help, file);
    if (r.code !== 0) return r;
    runs.push(r);
  }
  const ratio = (r) => n / (r.ms / 1000) / r.parse.rate;
  const sorted = [...runs].sort((a, b) => ratio(a) - ratio(b));
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  const peaks = runs.map((r) => r.peak).filter((p) => p !== undefined);
  return { ...median, peak: peaks.length > 0 ? Math.max(...peaks) : undefined, runs: runs.map((r) => ({ ratio: ratio(r), ms: r.ms, parseRate: r.parse.rate, peak: r.peak })) };
}

async function doBulkRun(n, help, file) {
  console.error(`bench: csv-parse raw parse rate of ${fmtInt(n)} rows`);
  const p = await runCmd(NODE, [join(BENCH, 'csv-parse-rate.mjs'), file]);
  if (p.code !== 0) throw new Error(`csv-parse baseline failed: ${tail(p.stderr)}`);
  const parse = JSON.parse(p.stdout.trim().split('\n').pop());

  const sandbox = await startSandbox();
  try {
    const args = bulkArgs(help, file, sandbox.value, ['--batch-size', '1000', '--concurrency', '4']);
    const useTime = existsSync('/usr/bin/time');
    const timeFile = join(TMP, `time-${n}.txt`);
    const stdoutFile = join(TMP, `send-bulk-${n}.out`);
    console.error(`bench: msgr send-bulk ${fmtInt(n)} rows → sandbox ${sandbox.value}${useTime ? '' : ' (no /usr/bin/time: polling VmHWM)'}`);
    let stopPoll;
    const r = await runCmd(useTime ? '/usr/bin/time' : NODE, useTime ? ['-v', '-o', timeFile, NODE, ...args] : args, {
      stdoutFile,
      timeoutMs: Math.max(120_000, n / 10), // 10 rows/s would be a hang, not a result
      onSpawn: (child) => {
        if (!useTime) stopPoll = pollHwm(child.pid);
      },
    });
    const peak = useTime ? (existsSync(timeFile) ? parseTimeV(readFileSync(timeFile, 'utf8')) : undefined) : stopPoll?.();
    let summary;
    try {
      summary = JSON.parse(readFileSync(stdoutFile, 'utf8'));
    } catch {
      // not one JSON document: fine, the exit code says what happened
    }
    return { n, file, parse, code: r.code, signal: r.signal, ms: r.ms, peak, stderr: r.stderr, summary, args };
  } finally {
    await sandbox.stop();
  }
}

/** curl baselines on the sandbox: a bash while-read loop and xargs -P 8, one request per row. */
async function curlBaselines() {
  if (!hasCommand('curl')) return { skipped: 'curl is missing (apt-get install -y curl)' };
  if (commandHelp('sandbox') === undefined) return { skipped: '`msgr sandbox` is not there yet' };
  const n = cfg.baselineRows;
  const file = csvFile(n);
  const url = '"$1/v2/messages"';
  const curl = `curl -s -o /dev/null -w '%{http_code}\\n' -X POST -H "X-Api-Key: $2" -H 'Content-Type: application/json'`;
  const body = `{\\"accountReference\\":\\"${ACCOUNT}\\",\\"channel\\":\\"SMS\\",\\"from\\":\\"Acme\\",\\"body\\":{\\"text\\":\\"Hi $name\\"},\\"recipients\\":[{\\"msisdn\\":\\"$msisdn\\"}]}`;
  const loop = join(TMP, 'curl-loop.sh');
  writeFileSync(loop, `#!/usr/bin/env bash\n# usage: curl-loop.sh BASE_URL API_KEY FILE.csv\ntail -n +2 "$3" | while IFS=, read -r msisdn name code; do\n  ${curl} --data "${body}" ${url}\ndone\n`);
  const xargs = join(TMP, 'curl-xargs.sh');
  writeFileSync(xargs, `#!/usr/bin/env bash\n# usage: curl-xargs.sh BASE_URL API_KEY FILE.csv\ntail -n +2 "$3" | while IFS=, read -r msisdn name code; do\n  printf '%s\\n' "${body}"\ndone | xargs -d '\\n' -P 8 -I{} ${curl} --data {} ${url}\n`);

  const sandbox = await startSandbox();
  const out = {};
  try {
    // The sandbox's own ceiling on this machine, for reading the send-bulk figure against.
    const capN = quick ? 20_000 : 200_000;
    console.error(`bench: sandbox capacity, ${fmtInt(capN)} recipients in pre-built batches of 1000, 4 connections`);
    const cap = await runCmd(NODE, [join(BENCH, 'sandbox-capacity.mjs'), sandbox.value, API_KEY, String(capN), '1000', '4'], { timeoutMs: 300_000 });
    if (cap.code === 0) out.capacity = JSON.parse(cap.stdout.trim().split('\n').pop());
    else note(`sandbox capacity not measured: ${tail(cap.stderr, 200)}`);
    if (out.capacity !== undefined && out.capacity.failures > 0) note(`sandbox capacity: ${out.capacity.failures} requests were not 2xx`);
    for (const [name, script] of [
      ['loop', loop],
      ['xargs', xargs],
    ]) {
      console.error(`bench: ${name === 'loop' ? 'bash loop of curl' : 'xargs -P 8 curl'}, ${fmtInt(n)} requests`);
      const r = await runCmd('bash', [script, sandbox.value, API_KEY, file], { timeoutMs: 600_000 });
      const codes = r.stdout.trim().split('\n').filter(Boolean);
      const ok = codes.filter((c) => c.startsWith('2')).length;
      out[name] = { rate: n / (r.ms / 1000), ok, n, ms: r.ms };
      if (ok !== n) note(`${name} baseline: only ${ok} of ${n} requests got a 2xx (${[...new Set(codes)].join(',')}): ${tail(r.stderr, 200)}`);
    }
  } finally {
    await sandbox.stop();
  }
  return out;
}

async function sectionBulk() {
  console.error('\n== bulk throughput ==');
  const base = await curlBaselines();
  let baselineText = '';
  if (base.skipped !== undefined) {
    note(`curl baselines not measured: ${base.skipped}`);
  } else {
    baselineText = `bash curl loop ${fmtInt(base.loop.rate)}/s; xargs -P 8 curl ${fmtInt(base.xargs.rate)}/s`;
    row('bulk', `baseline: bash while-read loop of curl (${fmtInt(cfg.baselineRows)} rows)`, `${fmtInt(base.loop.rate)} requests/s`, '', 'one request per recipient', 'info');
    row('bulk', `baseline: xargs -P 8 curl (${fmtInt(cfg.baselineRows)} rows)`, `${fmtInt(base.xargs.rate)} requests/s`, '', 'one request per recipient', 'info');
    if (base.capacity !== undefined) {
      row('bulk', 'sandbox capacity (pre-built batches of 1000, 4 connections)', `${fmtInt(base.capacity.rate)} recipients/s`, '', 'ceiling for any client of this sandbox here', 'info');
    }
  }

  const r = await bulkRun(cfg.rows);
  const figure = `send-bulk throughput (${fmtInt(cfg.rows)} rows, batch 1000, concurrency 4)`;
  const target = '>= 0.5x csv-parse and >= 100,000/s';
  if (r.skipped !== undefined) {
    row('bulk', figure, 'not measured', target, baselineText, 'skip');
    note(`bulk throughput: ${r.skipped}`);
    return;
  }
  const parseText = `csv-parse raw ${fmtInt(r.parse.rate)} rows/s`;
  const allBaselines = [parseText, baselineText].filter(Boolean).join('; ');
  if (r.code !== 0) {
    row('bulk', figure, `run failed: exit ${r.code ?? r.signal} after ${(r.ms / 1000).toFixed(1)} s`, target, allBaselines, 'error');
    note(`send-bulk stderr: ${tail(r.stderr, 800)}`);
    note(`send-bulk command: node ${r.args.map(shellQuote).join(' ')}`);
    return;
  }
  const rate = r.n / (r.ms / 1000);
  const ratio = rate / r.parse.rate;
  row('bulk', figure, `${fmtInt(rate)} recipients/s = ${ratio.toFixed(2)}x csv-parse (${(r.ms / 1000).toFixed(1)} s end to end)`, target, allBaselines, passMiss(ratio >= 0.5 && rate >= 100_000));
  if (base.skipped === undefined) note(`send-bulk is ${fmtInt(rate / base.xargs.rate)}x xargs -P 8 curl and ${fmtInt(rate / base.loop.rate)}x a bash curl loop`);
  if (r.runs !== undefined && r.runs.length > 1) {
    note(`send-bulk throughput: median of ${r.runs.length} runs, each after its own csv-parse run: ${r.runs.map((x) => `${x.ratio.toFixed(2)}x (${(x.ms / 1000).toFixed(1)} s, csv-parse ${fmtInt(x.parseRate)}/s)`).join(', ')}; peak RSS is the highest of them`);
  }
  // Where the time went, from msgr's own lines: the preflight (every row checked before the
  // first request) and the send pass.
  const pre = /preflight: .*\((\d+(?:\.\d+)?) s\)/.exec(r.stderr);
  const sending = typeof r.summary?.seconds === 'number' ? r.summary.seconds : undefined;
  if (pre !== null || sending !== undefined) note(`send-bulk phases: preflight ${pre?.[1] ?? '?'} s, sending ${sending ?? '?'} s (the sandbox parses bodies on its default 2 threads)`);
}

// ---------------------------------------------------------------------------------------------
// Section: memory

async function sectionMemory() {
  console.error('\n== memory ==');
  const limit1 = 150 * MB;
  const r = await bulkRun(cfg.rows);
  const figure = `peak RSS, send-bulk ${fmtInt(cfg.rows)} rows`;
  if (r.skipped !== undefined) {
    row('memory', figure, 'not measured', `<= ${fmtMB(limit1)}`, '', 'skip');
  } else if (r.code !== 0 || r.peak === undefined) {
    row('memory', figure, r.code !== 0 ? `run failed (exit ${r.code ?? r.signal})` : 'no RSS reading', `<= ${fmtMB(limit1)}`, '', 'error');
  } else {
    row('memory', figure, fmtMB(r.peak), `<= ${fmtMB(limit1)}`, `file ${fmtMB(statSync(r.file).size)}`, passMiss(r.peak <= limit1));
  }
  const bigFigure = `peak RSS, send-bulk ${fmtInt(cfg.bigRows)} rows`;
  const limit10 = 150 * MB + 30 * (cfg.bigRows - 1_000_000);
  const target10 = `<= ${fmtMB(limit10)} (150 MB + 30 B × ${fmtInt(cfg.bigRows - 1_000_000)} extra numbers)`;
  if (!opt.big) {
    row('memory', bigFigure, 'not run (needs --big)', target10, '', 'skip');
    return;
  }
  const big = await bulkRun(cfg.bigRows);
  if (big.skipped !== undefined) row('memory', bigFigure, 'not measured', target10, '', 'skip');
  else if (big.code !== 0 || big.peak === undefined) row('memory', bigFigure, big.code !== 0 ? `run failed (exit ${big.code ?? big.signal})` : 'no RSS reading', target10, '', 'error');
  else row('memory', bigFigure, `${fmtMB(big.peak)} (${fmtInt(cfg.bigRows / (big.ms / 1000))} recipients/s)`, target10, `file ${fmtMB(statSync(big.file).size)}`, passMiss(big.peak <= limit10));
}

// ---------------------------------------------------------------------------------------------
// Section: personalised (a message per row)

const PERSONAL_TEXT = 'Hi {{name}}, your code is {{code}}';
const ascii = (json) => json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The request bodies msgr sends for the bench CSV and PERSONAL_TEXT, one per line: the text uses
 * every column but the number, so each recipient is its number alone; ASCII-only JSON like msgr's.
 */
function personalBodies(n) {
  const file = join(DATA, `personal-bodies-${n}.jsonl`);
  const fd = openSync(file, 'w');
  let s = '';
  for (let i = 0; i < n; i++) {
    const text = `Hi ${NAMES[i % NAMES.length]}${i}, your code is ${String((i * 31337) % 1e6).padStart(6, '0')}`;
    s += `${ascii(JSON.stringify({ accountReference: ACCOUNT, channel: 'SMS', from: 'Acme', body: { text }, recipients: [{ msisdn: numberFor(i) }] }))}\n`;
    if (s.length > 1e6) {
      writeSync(fd, s);
      s = '';
    }
  }
  writeSync(fd, s);
  closeSync(fd);
  return file;
}

/** 1,000,000-row file for the memory figures: a distinct name per row and one of 7 days. */
function dayCsv(n) {
  mkdirSync(DATA, { recursive: true });
  const file = join(DATA, `personal-days-${n}.csv`);
  if (existsSync(file)) return file;
  const fd = openSync(file, 'w');
  writeSync(fd, 'msisdn,name,day\n');
  let s = '';
  const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
  for (let i = 0; i < n; i++) {
    s += `${numberFor(i)},${NAMES[i % NAMES.length]}${i},${days[(i * 7919) % 7]}\n`;
    if (s.length > 1e6) {
      writeSync(fd, s);
      s = '';
    }
  }
  writeSync(fd, s);
  closeSync(fd);
  return file;
}

/** send-bulk under /usr/bin/time -v (or polling VmHWM): wall time, peak RSS, stderr. */
async function timedSendBulk(args, label) {
  const useTime = existsSync('/usr/bin/time');
  const timeFile = join(TMP, `time-${label}.txt`);
  let stopPoll;
  const r = await runCmd(useTime ? '/usr/bin/time' : NODE, useTime ? ['-v', '-o', timeFile, NODE, MSGR, ...args] : [MSGR, ...args], {
    stdoutFile: join(TMP, `${label}.out`),
    timeoutMs: 1_800_000,
    onSpawn: (child) => {
      if (!useTime) stopPoll = pollHwm(child.pid);
    },
  });
  const peak = useTime ? (existsSync(timeFile) ? parseTimeV(readFileSync(timeFile, 'utf8')) : undefined) : stopPoll?.();
  return { ...r, peak };
}

async function sectionPersonalised() {
  console.error('\n== personalised ==');
  const help = commandHelp('send-bulk');
  const n = cfg.personalRows;
  const c = cfg.personalConcurrency;
  const figure = `send-bulk, ${fmtInt(n)} rows each with its own message, concurrency ${c}`;
  const target = '>= 0.8x a bare undici Pool';
  if (help === undefined || !hasFlag(help, '--text-column')) {
    row('personalised', figure, 'not measured', target, '', 'skip');
    note('personalised: this msgr has no per-row messages (--text-column)');
    return;
  }
  const file = csvFile(n);
  const bodies = personalBodies(n);
  await warmCache(file);
  const sandbox = await startSandbox();
  let bare;
  let msgr;
  try {
    console.error(`bench: bare undici Pool, ${fmtInt(n)} bodies, ${c} connections → ${sandbox.value}`);
    const b = await runCmd(NODE, [join(BENCH, 'undici-pool.mjs'), sandbox.value, API_KEY, bodies, String(c)], { timeoutMs: 1_800_000 });
    if (b.code !== 0) throw new Error(`undici Pool baseline failed: ${tail(b.stderr)}`);
    bare = JSON.parse(b.stdout.trim().split('\n').pop());
    console.error(`bench: msgr send-bulk ${fmtInt(n)} rows, '${PERSONAL_TEXT}', --concurrency ${c} → ${sandbox.value}`);
    msgr = await timedSendBulk(['send-bulk', file, '--from', 'Acme', '--text', PERSONAL_TEXT, '--account', ACCOUNT, '--base-url', sandbox.value, '--concurrency', String(c), '--yes', '--json', '--journal', join(TMP, `journal-personal-${Date.now()}`)], 'personal');
  } finally {
    await sandbox.stop();
  }
  if (bare.failures > 0) note(`personalised: the undici Pool baseline got ${bare.failures} answers that were not 2xx`);
  if (msgr.code !== 0) {
    row('personalised', figure, `run failed: exit ${msgr.code ?? msgr.signal}`, target, `undici Pool ${fmtInt(bare.rate)}/s`, 'error');
    note(`personalised send-bulk stderr: ${tail(msgr.stderr, 800)}`);
  } else {
    const rate = n / (msgr.ms / 1000);
    const ratio = rate / bare.rate;
    row('personalised', figure, `${fmtInt(rate)} recipients/s = ${ratio.toFixed(2)}x (${(msgr.ms / 1000).toFixed(1)} s end to end, ${fmtInt(n)} requests)`, target, `undici Pool ${fmtInt(bare.rate)} requests/s (${(bare.ms / 1000).toFixed(1)} s, bodies pre-built)`, passMiss(ratio >= 0.8));
    const pre = /preflight: .*\((\d+(?:\.\d+)?) s\)/.exec(msgr.stderr);
    if (pre !== null) note(`personalised: msgr's preflight took ${pre[1]} s of it (every row rendered, its parts counted, rows grouped)`);
  }

  // Peak RSS with a message per row, 1,000,000 rows: every message different (the preflight,
  // where the grouping holds the most open batches), and a real send of messages shared by day.
  const big = quick ? 50_000 : 1_000_000;
  const limit = 150 * MB;
  const days = dayCsv(big);
  const dry = await timedSendBulk(['send-bulk', days, '--from', 'Acme', '--text', 'Hi {{name}}', '--account', ACCOUNT, '--dry-run', '--json'], 'personal-dry');
  const dryFigure = `peak RSS, ${fmtInt(big)} rows each with its own message (--dry-run: preflight, grouping, parts)`;
  if (dry.code !== 0 || dry.peak === undefined) row('personalised', dryFigure, `run failed (exit ${dry.code ?? dry.signal})`, `<= ${fmtMB(limit)}`, '', 'error');
  else row('personalised', dryFigure, `${fmtMB(dry.peak)} (${(dry.ms / 1000).toFixed(1)} s)`, `<= ${fmtMB(limit)}`, `file ${fmtMB(statSync(days).size)}`, passMiss(dry.peak <= limit));
  const sb = await startSandbox();
  try {
    const sent = await timedSendBulk(['send-bulk', days, '--from', 'Acme', '--text', 'See you on {{day}}', '--account', ACCOUNT, '--base-url', sb.value, '--batch-size', '1000', '--concurrency', '4', '--yes', '--json', '--journal', join(TMP, `journal-days-${Date.now()}`)], 'personal-days');
    const sentFigure = `peak RSS, send-bulk ${fmtInt(big)} rows, '{{day}}' rendered per row (7 messages, batch 1000)`;
    if (sent.code !== 0 || sent.peak === undefined) {
      row('personalised', sentFigure, `run failed (exit ${sent.code ?? sent.signal})`, `<= ${fmtMB(limit)}`, '', 'error');
      note(`personalised memory run stderr: ${tail(sent.stderr, 600)}`);
    } else {
      row('personalised', sentFigure, `${fmtMB(sent.peak)} (${fmtInt(big / (sent.ms / 1000))} recipients/s)`, `<= ${fmtMB(limit)}`, `file ${fmtMB(statSync(days).size)}`, passMiss(sent.peak <= limit));
    }
  } finally {
    await sb.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Section: rate

/** Record lines → [{t, n}] sorted by time (receivedAt ms, recipients in the request). */
function readRecord(file) {
  if (!existsSync(file)) return [];
  const out = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const rec = JSON.parse(line);
    const recipients = rec.request?.recipients ?? rec.recipients ?? rec.body?.recipients ?? [];
    out.push({ t: Date.parse(rec.receivedAt), n: Array.isArray(recipients) ? recipients.length : Number(recipients) });
  }
  return out.sort((a, b) => a.t - b.t);
}

/** Largest number of recipients received in any window [t, t + ms). */
function maxInWindow(events, ms) {
  let best = 0;
  let sum = 0;
  let j = 0;
  for (let i = 0; i < events.length; i++) {
    while (j < events.length && events[j].t < events[i].t + ms) sum += events[j++].n;
    best = Math.max(best, sum);
    sum -= events[i].n;
  }
  return best;
}

async function sectionRate() {
  console.error('\n== rate ==');
  const { rate, rateSeconds: secs, rateBatch: batch } = cfg;
  const expected = rate * secs;
  const figure = `--rate ${rate}/s: recipients in the first ${secs} s`;
  const figure2 = `--rate ${rate}/s: most recipients in any 1 s`;
  const target = `${fmtInt(expected)} ± 3% (${fmtInt(expected * 0.97)}–${fmtInt(expected * 1.03)})`;
  const target2 = `<= ${fmtInt(rate + batch)} (${rate} + one batch of ${batch})`;
  const help = commandHelp('send-bulk');
  let skipped;
  if (help === undefined) skipped = '`msgr send-bulk` is not there yet';
  else if (!hasFlag(help, '--rate')) skipped = '`msgr send-bulk` has no --rate flag yet';
  else if (commandHelp('sandbox') === undefined) skipped = '`msgr sandbox` is not there yet';
  else if (!hasFlag(commandHelp('sandbox'), '--record')) skipped = '`msgr sandbox` has no --record flag yet';
  if (skipped !== undefined) {
    row('rate', figure, 'not measured', target, '', 'skip');
    row('rate', figure2, 'not measured', target2, '', 'skip');
    note(`rate: ${skipped}`);
    return;
  }
  // 10% more rows than the window needs, so the limiter (not the file) sets the pace throughout.
  const n = Math.ceil(expected * 1.1);
  const file = csvFile(n);
  const record = join(TMP, 'rate-record.jsonl');
  rmSync(record, { force: true });
  const sandbox = await startSandbox(['--record', record]);
  let r;
  try {
    console.error(`bench: msgr send-bulk ${fmtInt(n)} rows --rate ${rate}/s --batch-size ${batch} (about ${Math.ceil(n / rate)} s)`);
    r = await runCmd(NODE, bulkArgs(help, file, sandbox.value, ['--rate', `${rate}/s`, '--batch-size', String(batch)]), {
      stdoutFile: join(TMP, 'send-bulk-rate.out'),
      timeoutMs: (n / rate + 30) * 1000,
    });
  } finally {
    await sandbox.stop();
  }
  const events = readRecord(record);
  if (events.length === 0) {
    row('rate', figure, `nothing received (send-bulk exit ${r.code ?? r.signal})`, target, '', 'error');
    note(`send-bulk stderr: ${tail(r.stderr, 800)}`);
    return;
  }
  if (r.code !== 0) note(`rate run: send-bulk exit ${r.code ?? r.signal}: ${tail(r.stderr, 300)}`);
  const t0 = events[0].t;
  const inWindow = events.filter((e) => e.t < t0 + secs * 1000).reduce((s, e) => s + e.n, 0);
  const total = events.reduce((s, e) => s + e.n, 0);
  const span = (events[events.length - 1].t - t0) / 1000;
  const peak = maxInWindow(events, 1000);
  row('rate', figure, `${fmtInt(inWindow)} (${((inWindow / expected - 1) * 100).toFixed(1)}%)`, target, `${fmtInt(total)} in ${span.toFixed(1)} s overall`, passMiss(Math.abs(inWindow - expected) <= expected * 0.03));
  row('rate', figure2, fmtInt(peak), target2, `${events.length} requests recorded`, passMiss(peak <= rate + batch));
}

// ---------------------------------------------------------------------------------------------
// Report

function gitCommit() {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return r.status === 0 ? `${r.stdout.trim()}${dirty ? ' (+ uncommitted changes in src/)' : ''}` : 'unknown';
}

function report() {
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, ${process.platform}`;
  const header = ['figure', 'measured', 'target', 'baseline', 'result'];
  const body = rows.map((r) => [r.figure, r.measured, r.target, r.baseline, r.status]);
  const widths = header.map((h, i) => Math.min(70, Math.max(h.length, ...body.map((b) => b[i].length))));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  const text = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
  console.log(`\nmsgr bench — ${new Date().toISOString()} — ${machine} — commit ${gitCommit()}${quick ? ' — QUICK MODE (smoke test, not the issue\'s sizes)' : ''}\n`);
  console.log(text);
  if (notes.length > 0) console.log(`\n${notes.map((n) => `- ${n}`).join('\n')}`);

  const esc = (s) => s.replace(/\|/g, '\\|');
  const md = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}, commit ${gitCommit()}${quick ? ' (quick mode: smoke test, not the issue\'s sizes)' : ''}; ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...body.map((b) => `| ${b.map(esc).join(' | ')} |`),
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
  mkdirSync(DATA, { recursive: true });
  writeFileSync(join(DATA, 'results.md'), md);
  writeFileSync(join(DATA, 'results.json'), `${JSON.stringify({ date: new Date().toISOString(), machine, commit: gitCommit(), quick, config: cfg, rows, notes }, null, 2)}\n`);
  console.log(`\nwritten: ${join('bench', '.data', 'results.md')} and results.json`);
}

// ---------------------------------------------------------------------------------------------

const started = performance.now();

async function main() {
  console.error(`bench: sections ${only.join(', ')}${quick ? ' (quick)' : ''}; temporary files in ${TMP}`);
  for (const tool of ['hyperfine', 'curl']) {
    if (!hasCommand(tool)) console.error(`bench: ${tool} not found — install with: sudo apt-get update && sudo apt-get install -y ${tool}`);
  }
  if (!existsSync('/usr/bin/time')) console.error('bench: /usr/bin/time not found (Debian package `time`): peak RSS falls back to polling /proc/<pid>/status');
  const load = loadavg()[0];
  if (load > 0.5) note(`load average was ${load.toFixed(2)} at the start: other work on this ${cpus().length}-core machine skews every figure; rerun on a quiet machine`);
  ensureBuilt();
  const run = { startup: sectionStartup, bulk: sectionBulk, memory: sectionMemory, rate: sectionRate, personalised: sectionPersonalised };
  for (const s of SECTIONS) if (only.includes(s)) await run[s]();
  report();
}

try {
  await main();
} catch (err) {
  console.error(`\nbench: broke: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  if (rows.length > 0) report();
  process.exitCode = 1;
} finally {
  killAll();
  if (!opt.keep) rmSync(TMP, { recursive: true, force: true });
  else console.error(`bench: kept ${TMP}`);
}
