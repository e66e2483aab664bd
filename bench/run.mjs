#!/usr/bin/env node
// msgr performance bench. `npm run bench [-- flags]`; see docs/performance.md.
//
// Sections (all by default; pick with --only a,b):
//   startup   cold start with hyperfine against `node -e 0` in the same run
//   exe       the single executable file (Node 25.5+ runs the bench): build time, size, and its
//             cold start against `node -e 0` of the same Node
//   history   the cost of history: start-up and a bulk preflight over 0, 100,000 and 1,000,000
//             opt-outs, campaign keys and runs, each against the same command with none
//   bulk      send-bulk throughput vs csv-parse's raw parse rate, plus curl baselines
//   memory    peak RSS of the bulk run (and of a 10M-row run with --big)
//   rate      --rate 500/s for 20 s against the sandbox's record file
//   personalised  a message per row: 100,000 different messages at concurrency 16 against a bare
//             undici Pool posting the same bodies; peak RSS of 1,000,000 personalised rows
//   listen    msgr listen at 2,000 webhook events/s (open loop, undici, 64 connections): rate, p99
//             answer time against a bare node:http server and one fdatasync per event, RSS
//
// It builds dist/ when it is stale, generates its own data in bench/.data/ (gitignored),
// starts and stops its own servers, prints one table and writes bench/.data/results.md and
// results.json. A missed target is a result, not a failure: the exit code is 0 unless the bench
// itself broke (1) or was interrupted (130).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { DATA, ROOT, SECTIONS, cfg, only, opt, quick } from './lib/config.mjs';
import { ensureBuilt } from './lib/build.mjs';
import { TMP, hasCommand, killAll } from './lib/processes.mjs';
import { note, notes, rows } from './lib/results.mjs';
import { sectionBulk } from './sections/bulk.mjs';
import { sectionExe } from './sections/exe.mjs';
import { sectionMemory } from './sections/memory.mjs';
import { sectionPersonalised } from './sections/personalised.mjs';
import { sectionRate } from './sections/rate.mjs';
import { sectionStartup } from './sections/startup.mjs';
import { sectionListen } from './sections/listen.mjs';
import { sectionHistory } from './sections/history.mjs';

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
  const run = { startup: sectionStartup, exe: sectionExe, history: sectionHistory, bulk: sectionBulk, memory: sectionMemory, rate: sectionRate, personalised: sectionPersonalised, listen: sectionListen };
  for (const s of SECTIONS) if (only.includes(s)) await run[s]();
  report();
}

function gitCommit() {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return r.status === 0 ? `${r.stdout.trim()}${dirty ? ' (+ uncommitted changes in src/)' : ''}` : 'unknown';
}

/** The table on stdout, and the same in bench/.data/results.md and results.json. */
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
