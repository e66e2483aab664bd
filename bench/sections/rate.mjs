// Section rate: send-bulk --rate 500/s against the sandbox's record file: the recipients received
// in the first --rate-seconds, and the most in any one second.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { NODE, cfg } from '../lib/config.mjs';
import { csvFile } from '../lib/data.mjs';
import { commandHelp, hasFlag } from '../lib/features.mjs';
import { TMP, runCmd, startSandbox, tail } from '../lib/processes.mjs';
import { fmtInt, note, passMiss, row } from '../lib/results.mjs';
import { bulkArgs } from '../lib/send-bulk.mjs';

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

export async function sectionRate() {
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
