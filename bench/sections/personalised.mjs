// Section personalised: a message per row. send-bulk with every message different against a bare
// undici Pool posting the same bodies to the same sandbox, and peak RSS of 1,000,000 personalised
// rows (--dry-run, and a real send of messages shared by day).
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ACCOUNT, API_KEY, BENCH, DATA, MSGR, NODE, cfg, quick } from '../lib/config.mjs';
import { NAMES, csvFile, numberFor, warmCache, writeLines } from '../lib/data.mjs';
import { commandHelp, hasFlag } from '../lib/features.mjs';
import { TMP, parseTimeCpu, parseTimeV, pollHwm, runCmd, startSandbox, tail } from '../lib/processes.mjs';
import { MB, fmtInt, fmtMB, note, passMiss, row } from '../lib/results.mjs';

const PERSONAL_TEXT = 'Hi {{name}}, your code is {{code}}';
const ascii = (json) => json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The request bodies msgr sends for the bench CSV and PERSONAL_TEXT, one per line: the text uses
 * every column but the number, so each recipient is its number alone; ASCII-only JSON like msgr's.
 */
function personalBodies(n) {
  const file = join(DATA, `personal-bodies-${n}.jsonl`);
  writeLines(file, '', n, (i) => {
    const text = `Hi ${NAMES[i % NAMES.length]}${i}, your code is ${String((i * 31337) % 1e6).padStart(6, '0')}`;
    return `${ascii(JSON.stringify({ accountReference: ACCOUNT, channel: 'SMS', from: 'Acme', body: { text }, recipients: [{ msisdn: numberFor(i) }] }))}\n`;
  });
  return file;
}

/** 1,000,000-row file for the memory figures: a distinct name per row and one of 7 days. */
function dayCsv(n) {
  mkdirSync(DATA, { recursive: true });
  const file = join(DATA, `personal-days-${n}.csv`);
  if (existsSync(file)) return file;
  const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
  writeLines(file, 'msisdn,name,day\n', n, (i) => `${numberFor(i)},${NAMES[i % NAMES.length]}${i},${days[(i * 7919) % 7]}\n`);
  return file;
}

/**
 * A Node script under /usr/bin/time -v (or polling VmHWM): wall time, peak RSS, CPU seconds
 * (user + system; undefined without /usr/bin/time), stdout (or into a file) and stderr.
 */
async function timedNode(args, label, stdoutFile) {
  const useTime = existsSync('/usr/bin/time');
  const timeFile = join(TMP, `time-${label}.txt`);
  let stopPoll;
  const r = await runCmd(useTime ? '/usr/bin/time' : NODE, useTime ? ['-v', '-o', timeFile, NODE, ...args] : args, {
    ...(stdoutFile !== undefined ? { stdoutFile } : {}),
    timeoutMs: 1_800_000,
    onSpawn: (child) => {
      if (!useTime) stopPoll = pollHwm(child.pid);
    },
  });
  const report = useTime && existsSync(timeFile) ? readFileSync(timeFile, 'utf8') : undefined;
  const peak = useTime ? (report !== undefined ? parseTimeV(report) : undefined) : stopPoll?.();
  return { ...r, peak, cpu: report !== undefined ? parseTimeCpu(report) : undefined };
}

/** send-bulk, timed (timedNode), its stdout into a file. */
function timedSendBulk(args, label) {
  return timedNode([MSGR, ...args], label, join(TMP, `${label}.out`));
}

export async function sectionPersonalised() {
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
  if (cfg.personalRuns > 0) await throughputPairs(n, c, figure, target);
  await peakRss();
}

/** The throughput figure: pairs of runs, a bare undici Pool and then msgr, each against its own sandbox. */
async function throughputPairs(n, c, figure, target) {
  const file = csvFile(n);
  const bodies = personalBodies(n);
  await warmCache(file);
  // Pairs of runs, the Pool right before msgr, each against a sandbox of its own, so both face
  // the same server (a shared one charged each run for the ones before it: its Idempotency-Key
  // cache, full after 100,000 requests, cost 4.9 → 9.1 s of its CPU per 100,000 until it was
  // fixed). The Pool's rate also moves with the load on this shared machine, so each ratio is
  // taken within its pair and the median counts.
  const pairs = [];
  let failed;
  const withSandbox = async (fn) => {
    const sandbox = await startSandbox();
    try {
      return await fn(sandbox.value);
    } finally {
      await sandbox.stop();
    }
  };
  for (let run = 1; run <= cfg.personalRuns && failed === undefined; run++) {
    const bare = await withSandbox(async (url) => {
      console.error(`bench: bare undici Pool, ${fmtInt(n)} bodies, ${c} connections → ${url} (run ${run} of ${cfg.personalRuns})`);
      const b = await timedNode([join(BENCH, 'undici-pool.mjs'), url, API_KEY, bodies, String(c)], 'pool');
      if (b.code !== 0) throw new Error(`undici Pool baseline failed: ${tail(b.stderr)}`);
      return { ...JSON.parse(b.stdout.trim().split('\n').pop()), cpu: b.cpu };
    });
    if (bare.failures > 0) note(`personalised: the undici Pool baseline got ${bare.failures} answers that were not 2xx`);
    const msgr = await withSandbox((url) => {
      console.error(`bench: msgr send-bulk ${fmtInt(n)} rows, '${PERSONAL_TEXT}', --concurrency ${c} → ${url}`);
      return timedSendBulk(['send-bulk', file, '--from', 'Acme', '--text', PERSONAL_TEXT, '--account', ACCOUNT, '--base-url', url, '--concurrency', String(c), '--yes', '--json', '--journal', join(TMP, `journal-personal-${Date.now()}`)], 'personal');
    });
    if (msgr.code !== 0) {
      failed = { msgr, bare };
      break;
    }
    const rate = n / (msgr.ms / 1000);
    const pre = /preflight: .*\((\d+(?:\.\d+)?) s\)/.exec(msgr.stderr);
    pairs.push({ rate, ratio: rate / bare.rate, ms: msgr.ms, bare, preflight: pre?.[1], cpu: msgr.cpu });
  }
  if (failed !== undefined) {
    row('personalised', figure, `run failed: exit ${failed.msgr.code ?? failed.msgr.signal}`, target, `undici Pool ${fmtInt(failed.bare.rate)}/s`, 'error');
    note(`personalised send-bulk stderr: ${tail(failed.msgr.stderr, 800)}`);
  } else {
    const mid = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor((pairs.length - 1) / 2)];
    row('personalised', figure, `${fmtInt(mid.rate)} recipients/s = ${mid.ratio.toFixed(2)}x (${(mid.ms / 1000).toFixed(1)} s end to end, ${fmtInt(n)} requests)`, target, `undici Pool ${fmtInt(mid.bare.rate)} requests/s (${(mid.bare.ms / 1000).toFixed(1)} s, bodies pre-built)`, passMiss(mid.ratio >= 0.8));
    if (pairs.length > 1) note(`personalised: median of ${pairs.length} pairs, each msgr run right after its own Pool run: ${pairs.map((p) => `${p.ratio.toFixed(2)}x (${fmtInt(p.rate)}/s against ${fmtInt(p.bare.rate)}/s)`).join(', ')}`);
    if (mid.preflight !== undefined) note(`personalised: msgr's preflight took ${mid.preflight} s of it (every row rendered, its parts counted, rows grouped)`);
    // CPU moves less with the machine's state than the ratio does: the figure to watch when
    // working on msgr's own cost.
    if (mid.cpu !== undefined && mid.bare.cpu !== undefined) note(`personalised: CPU (user + system) in the median pair: msgr ${mid.cpu.toFixed(1)} s, the Pool ${mid.bare.cpu.toFixed(1)} s, for ${fmtInt(n)} requests`);
  }
}

/**
 * Peak RSS with a message per row, 1,000,000 rows: every message different (the preflight,
 * where the grouping holds the most open batches), and a real send of messages shared by day.
 */
async function peakRss() {
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
