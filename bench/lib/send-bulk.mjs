// msgr send-bulk as the bulk, memory and rate sections run it: its arguments, and the timed
// throughput runs the bulk and memory sections share (each size is run once per bench).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACCOUNT, BENCH, MSGR, NODE, cfg } from './config.mjs';
import { csvFile, warmCache } from './data.mjs';
import { commandHelp, hasFlag } from './features.mjs';
import { TMP, parseTimeV, pollHwm, runCmd, startSandbox, tail } from './processes.mjs';
import { fmtInt } from './results.mjs';

export function bulkArgs(help, file, baseUrl, extra) {
  const args = [MSGR, 'send-bulk', file, '--from', 'Acme', '--text', 'Hi {{name}}', '--account', ACCOUNT, '--base-url', baseUrl];
  if (hasFlag(help, '--json')) args.push('--json');
  if (hasFlag(help, '--journal')) args.push('--journal', join(TMP, `journal-${Date.now()}`));
  // The command has no --report; add one with --bulk-args '--report FILE.csv' to measure
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
export function bulkRun(n) {
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
