// Child processes: everything started here is tracked and killed on the way out. The temporary
// folder (TMP: servers' certificates, records, send-bulk output), the environment every msgr run
// gets, servers and the sandbox, and peak RSS readings.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { setInterval, clearInterval } from 'node:timers';
import { API_KEY, MSGR, NODE, opt, ROOT } from './config.mjs';

const children = new Set();
function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}
export function killAll() {
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
    // process.exit() skips run.mjs's finally: the scratch folder goes here.
    if (!opt.keep) rmSync(TMP, { recursive: true, force: true });
    process.exit(130);
  });
}

export const TMP = mkdtempSync(join(tmpdir(), 'msgr-bench-'));
const CONFIG_DIR = join(TMP, 'config');
mkdirSync(CONFIG_DIR, { recursive: true });

/** The environment every msgr run gets: nothing MSGR_* or NODE_* from the caller's shell. */
export function benchEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('MSGR_') || k.startsWith('NODE_') || k === 'FORCE_COLOR' || /^(https?|no)_proxy$/i.test(k)) continue;
    if (k.startsWith('npm_')) continue; // `npm run` adds ~100 of these; keep the env like a shell's
    env[k] = v;
  }
  return { ...env, NO_COLOR: '1', MSGR_CONFIG_DIR: CONFIG_DIR, MSGR_API_KEY: API_KEY, ...extra };
}

export function tail(text, n = 600) {
  const t = text.trim();
  return t.length > n ? `…${t.slice(-n)}` : t;
}

/**
 * Runs a command to completion. stdout goes to `stdoutFile` when given (send-bulk --json can be
 * large), else it is captured (last 1 MB). Resolves with code, signal, output and wall time.
 */
export function runCmd(cmd, args, { env = benchEnv(), stdoutFile, timeoutMs, onSpawn, cwd = ROOT } = {}) {
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

export function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0;
}

/** Starts a child that prints a URL (or port) on its first stdout line; resolves with it. */
export function startServer(cmd, args, { env = benchEnv(), match, name }) {
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

export function startSandbox(extraArgs = []) {
  return startServer(NODE, [MSGR, 'sandbox', '--port', '0', '-q', ...extraArgs], {
    name: 'sandbox',
    match: (line) => /^https?:\/\/\S+$/.test(line.trim()) ? line.trim() : undefined,
  });
}

/** An argument as sh reads it back: hyperfine takes command lines, and a failed run's note shows one. */
export function shellQuote(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Peak RSS in bytes from the report of `/usr/bin/time -v`. */
export function parseTimeV(text) {
  const m = /Maximum resident set size \(kbytes\):\s*(\d+)/.exec(text);
  return m !== null ? Number(m[1]) * 1024 : undefined;
}

/** CPU seconds (user + system) from the report of `/usr/bin/time -v`. */
export function parseTimeCpu(text) {
  const user = /User time \(seconds\):\s*([\d.]+)/.exec(text);
  const sys = /System time \(seconds\):\s*([\d.]+)/.exec(text);
  return user !== null && sys !== null ? Number(user[1]) + Number(sys[1]) : undefined;
}

/** Polls VmHWM of a pid (the fallback when /usr/bin/time is missing). */
export function pollHwm(pid) {
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
