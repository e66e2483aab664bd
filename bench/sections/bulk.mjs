// Section bulk: send-bulk throughput against csv-parse's raw parse rate of the same file, beside
// curl baselines (a bash loop and xargs -P 8, one request per recipient) and the sandbox's own
// ceiling.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACCOUNT, API_KEY, BENCH, NODE, cfg, quick } from '../lib/config.mjs';
import { csvFile } from '../lib/data.mjs';
import { commandHelp } from '../lib/features.mjs';
import { TMP, hasCommand, runCmd, shellQuote, startSandbox, tail } from '../lib/processes.mjs';
import { fmtInt, note, passMiss, row } from '../lib/results.mjs';
import { bulkRun } from '../lib/send-bulk.mjs';

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

export async function sectionBulk() {
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
