// What every part of the bench reads: where things are, which msgr it measures, and this run's
// settings from the command line (cfg, written into results.json). Parsing the flags happens on
// import, so --help and a bad flag end the process before any temporary folder or server exists.
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BENCH = join(ROOT, 'bench');
export const DATA = join(BENCH, '.data');
// BENCH_MSGR_BIN measures another entry point (another checkout, a stub for testing the bench).
export const MSGR = process.env.BENCH_MSGR_BIN !== undefined ? resolve(process.env.BENCH_MSGR_BIN) : join(ROOT, 'bin', 'msgr.js');
export const NODE = process.execPath;
export const API_KEY = 'bench-key-0000';
export const ACCOUNT = 'ACME01';
export const SECTIONS = ['startup', 'exe', 'history', 'bulk', 'memory', 'rate', 'personalised', 'listen'];

const USAGE = `usage: npm run bench -- [options]
  --only <list>       sections to run, comma separated: ${SECTIONS.join(',')} (default: all)
  --quick             smoke mode: 5 hyperfine runs, 20,000 bulk rows, 200 baseline rows, 5 s rate test
  --rows <n>          rows for the bulk throughput run (default 1,000,000)
  --big               also run the 10,000,000-row memory check (takes minutes and ~400 MB of disk),
                      and the history section's 1,000,000 runs (~8 GB of disk)
  --runs <n>          hyperfine runs per command (default 20)
  --baseline-rows <n> rows for the curl baselines (default 2,000)
  --rate-seconds <n>  length of the rate test (default 20)
  --rounds <n>        hyperfine rounds over all start-up commands; the median round counts (default 3)
  --tricks            start-up: also time each start-up trick switched off and on (bench/tricks.mjs)
  --bulk-args <args>  extra flags for every send-bulk run, space separated
  --bulk-runs <n>     send-bulk throughput runs, each after its own csv-parse run; the median counts (default 3)
  --personal-rows <n> rows for the personalised throughput run (default 100,000)
  --personal-runs <n> personalised throughput runs, each after its own undici Pool run; the median ratio counts (default 3;
                      0: only the section's two peak RSS rows)
  --listen-seconds <n> length of each msgr listen load run at 2,000 events/s (default 20)
  --build / --no-build  force / skip the build (default: build when dist/ is older than src/ or has no code caches for this Node)
  --keep              keep the temporary folder (servers' certs, records, send-bulk output)
  -h, --help          this text`;

function parseOptions(spec) {
  try {
    return parseArgs(spec);
  } catch (err) {
    // An unknown flag or a missing value: one line and the usage, exit 2 (no stack).
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}

export const { values: opt } = parseOptions({
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
    'personal-runs': { type: 'string' },
    'listen-seconds': { type: 'string' },
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

function intOpt(name, fallback, min = 1) {
  const raw = opt[name];
  if (raw === undefined) return fallback;
  const n = Number(String(raw).replace(/[_,]/g, ''));
  if (!Number.isInteger(n) || n < min) {
    console.error(`bench: --${name} must be an integer of at least ${min} (got ${raw})`);
    process.exit(2);
  }
  return n;
}

export const quick = opt.quick;
export const only = opt.only !== undefined ? opt.only.split(',').map((s) => s.trim()).filter(Boolean) : SECTIONS;
for (const s of only) {
  if (!SECTIONS.includes(s)) {
    console.error(`bench: unknown section "${s}" (sections: ${SECTIONS.join(', ')})`);
    process.exit(2);
  }
}
export const cfg = {
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
  personalRuns: intOpt('personal-runs', quick ? 1 : 3, 0),
  listenSeconds: intOpt('listen-seconds', quick ? 5 : 20),
  listenFill: quick ? 30_000 : 250_000,
  bulkArgs: opt['bulk-args'] !== undefined ? opt['bulk-args'].split(/\s+/).filter(Boolean) : [],
};
