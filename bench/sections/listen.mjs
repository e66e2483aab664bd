// Section listen: msgr listen under webhook load on 127.0.0.1 (docs/performance.md: "What each
// figure means"; its rounds: docs/performance-history.md: "Receiving events"). An open-loop
// generator (undici Pool, 64 connections) offers 2,000 events a second, one
// JSON event per request, each timed from the moment it was due (so a stall is counted in every
// request it delays); every event must be flushed to disk before its answer. Baselines in the
// same run, on the same generator: a bare node:http server that stores nothing (the HTTP floor of
// this machine), and one that appends and fdatasyncs each event on its own (no group commit).
// First the most events a second with 64 requests always in flight, then RSS over everything.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetch } from 'undici';
import { MSGR, NODE, ROOT, cfg } from '../lib/config.mjs';
import { commandHelp } from '../lib/features.mjs';
import { TMP, benchEnv, startServer, tail } from '../lib/processes.mjs';
import { fmtInt, note, passMiss, row } from '../lib/results.mjs';

const TOKEN = 'bench-listen-token-0123456789';
const CONNECTIONS = 64;

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function rssOf(pid) {
  try {
    const m = /VmRSS:\s*(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m !== null ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const body = (i) => JSON.stringify({ type: 'message.status', id: `bench_e_${i}`, createdAt: new Date().toISOString(), messageId: `bench_m_${i}`, msisdn: `+4477009${String(i % 100000).padStart(5, '0')}`, status: 'delivered', final: true, channel: 'SMS' });

/**
 * Offers `rate` requests a second for `seconds` (open loop), or with `closed`, keeps CONNECTIONS
 * requests in flight for `count` requests (or `seconds`). Returns latencies (ms, sorted), answers by status, the rate
 * achieved and, while it ran, the server's RSS each second.
 */
async function load(url, { rate, seconds = 0, count = Infinity, closed = false, pid, first = 0 }) {
  const { Pool } = await import('undici');
  const u = new URL(url);
  const pool = new Pool(u.origin, { connections: CONNECTIONS, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies = [];
  const statuses = new Map();
  const rss = [];
  let next = first;
  const send = async (due) => {
    const i = next++;
    try {
      const res = await pool.request({ path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) });
      await res.body.dump();
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    } catch (err) {
      statuses.set(err.code ?? 'error', (statuses.get(err.code ?? 'error') ?? 0) + 1);
    }
    latencies.push(performance.now() - due);
  };
  const rssTimer = setInterval(() => {
    const r = pid !== undefined ? rssOf(pid) : undefined;
    if (r !== undefined) rss.push(r);
  }, 1000);
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const inflight = new Set();
  if (closed) {
    const worker = async () => {
      while (next - first < count && (count !== Infinity || performance.now() < end)) await send(performance.now());
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  } else {
    let offered = 0;
    while (performance.now() < end) {
      const due = Math.floor(((performance.now() - t0) / 1000) * rate);
      for (; offered < due; offered++) {
        const p = send(t0 + (offered / rate) * 1000);
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      }
      await sleep(2);
    }
    await Promise.all(inflight);
  }
  const elapsed = (performance.now() - t0) / 1000;
  clearInterval(rssTimer);
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { latencies, statuses, rate: latencies.length / elapsed, rss, sent: next - first };
}

/** A Node server script in a child process: the bench's baselines. */
function startBaseline(kind, file) {
  const script = `
    const http = require('node:http');
    const fs = require('node:fs/promises');
    (async () => {
      const fh = ${kind === 'fsync-each' ? `await fs.open(${JSON.stringify(file)}, 'a')` : 'undefined'};
      let chain = Promise.resolve();
      http.createServer((req, res) => {
        let b = '';
        req.on('data', (d) => (b += d));
        req.on('end', () => {
          if (fh === undefined) return void res.end();
          // One write and one fdatasync per event, in order: no grouping.
          chain = chain.then(async () => { await fh.write(b + '\\n'); await fh.datasync(); res.end(); });
        });
      }).listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port + '/'); });
    })();`;
  return startServer(NODE, ['-e', script], { name: `baseline ${kind}`, match: (line) => (/^http:\/\//.test(line) ? line.trim() : undefined) });
}

function statusText(statuses) {
  return [...statuses].map(([s, n]) => `${s}×${fmtInt(n)}`).join(', ');
}

export async function sectionListen() {
  console.error('\n== listen ==');
  const rate = 2_000;
  const seconds = cfg.listenSeconds;
  const figure = `listen: events/s with ${fmtInt(rate)}/s offered, each on disk before its answer`;
  if (commandHelp('listen') === undefined) {
    row('listen', figure, 'not measured', `>= ${fmtInt(rate)}`, '', 'skip');
    note('listen: `msgr listen` is not there yet');
    return;
  }
  const out = join(TMP, 'listen-events.jsonl');
  rmSync(out, { force: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/${TOKEN}`;
  const child = spawn(NODE, [MSGR, 'listen', '--port', String(port), '--out', out, '-q'], { cwd: ROOT, env: benchEnv({ MSGR_LISTEN_TOKEN: TOKEN }), stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  // -q prints no banner: ready once a GET with the token is answered.
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`msgr listen exited (${child.exitCode}): ${tail(err)}`);
    if ((await fetch(url).then((r) => r.status, () => 0)) === 200) break;
    if (i > 200) throw new Error(`msgr listen did not answer in 10 s: ${tail(err)}`);
    await sleep(50);
  }
  const listen = { child, url };
  const bare = await startBaseline('bare');
  const each = await startBaseline('fsync-each', join(TMP, 'listen-baseline.jsonl'));
  try {
    // First, as many events as it takes: the most events a second, and the duplicates' memory
    // filled to its bound (200,000 ids), so the measured run shows the steady state.
    const most = await load(listen.url, { closed: true, count: cfg.listenFill, pid: listen.child.pid, first: 10_000_000 });
    const floor = await load(bare.value, { rate, seconds });
    const naive = await load(each.value, { rate, seconds: Math.min(seconds, 10) });
    const linesBefore = countLines(out);
    const run = await load(listen.url, { rate, seconds, pid: listen.child.pid });
    const recorded = countLines(out) - linesBefore;
    const ok = run.statuses.get(200) ?? 0;
    const p99 = percentile(run.latencies, 99);
    row('listen', figure, `${fmtInt(run.rate)}/s (${statusText(run.statuses)})`, `>= ${fmtInt(rate)}`, `bare http ${fmtInt(floor.rate)}/s`, passMiss(run.rate >= rate * 0.98 && ok === run.sent));
    row('listen', `listen: p99 answer at ${fmtInt(rate)} ev/s (p50 ${percentile(run.latencies, 50).toFixed(1)} ms, max ${run.latencies.at(-1)?.toFixed(0)} ms)`, `${p99.toFixed(1)} ms`, '<= 50 ms',
      `bare http p99 ${percentile(floor.latencies, 99).toFixed(1)} ms; fdatasync per event: p99 ${percentile(naive.latencies, 99).toFixed(0)} ms at ${fmtInt(naive.rate)}/s`, passMiss(p99 <= 50));
    row('listen', 'listen: events in the file = events answered 200', `${fmtInt(recorded)} of ${fmtInt(ok)}`, 'equal', '', passMiss(recorded === ok));
    // Bounded, not flat to the byte: V8 lets the heap grow between collections (over 1,000,000
    // events RSS swung between 146 and 215 MB on Node 20; with --max-old-space-size=96 it stayed at
    // 135 MB), so the figure is the peak over every event of the section.
    const all = [...most.rss, ...run.rss];
    const peak = Math.max(...all);
    row('listen', `listen: peak RSS over ${fmtInt(cfg.listenFill + run.sent)} events (duplicates' memory full)`, `${(peak / 1e6).toFixed(0)} MB`, '<= 256 MB', `first second ${(all[0] / 1e6).toFixed(0)} MB, end ${(all.at(-1) / 1e6).toFixed(0)} MB`, passMiss(peak <= 256e6));
    row('listen', `listen: most events/s, ${CONNECTIONS} requests always in flight`, `${fmtInt(most.rate)}/s (p99 ${percentile(most.latencies, 99).toFixed(0)} ms)`, '', `bare http ${fmtInt((await load(bare.value, { closed: true, count: 100_000 })).rate)}/s`, 'info');
    if (err.trim() !== '') note(`listen stderr: ${tail(err, 300)}`);
  } finally {
    listen.child.kill('SIGINT');
    await bare.stop();
    await each.stop();
  }
}

function countLines(path) {
  if (!existsSync(path)) return 0;
  const b = readFileSync(path);
  let n = 0;
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++;
  return n;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
