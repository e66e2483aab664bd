// Section history: what years of use cost a send. The same commands over state folders holding 0,
// 100,000 and 1,000,000 opt-outs, campaign keys and runs (bench/lib/history.mjs makes them once in
// bench/.data/history/), timed with hyperfine in shuffled rounds against the same command over an
// empty state folder, and beside `node -e 0`:
//   start-up  `send --dry-run`, `optout check NUMBER`, `send --once KEY --dry-run` (a key not used
//             yet: the look-up a webhook handler makes): each at most 1.15x its time with no history
//   bulk      a 1,000-row `send-bulk --dry-run` (every row checked, 100 of them opted out): its time
//             against no history, and how much of the store file it reads (strace): at most all, once
// `--big` adds 1,000,000 runs (~8 GB of disk, minutes to make); `--quick` uses 0, 1,000 and 10,000.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { ACCOUNT, MSGR, NODE, cfg, opt, quick } from '../lib/config.mjs';
import { HISTORY_BASE_URL, SUPPRESSED_ROWS, emptyState, historyCsv, keyState, optOutState, runState } from '../lib/history.mjs';
import { hyperfineRounds, overRounds, roundRatios, workingCommands } from '../lib/hyperfine.mjs';
import { TMP, benchEnv, hasCommand, tail } from '../lib/processes.mjs';
import { fmtInt, fmtMs, note, passMiss, row } from '../lib/results.mjs';

/** No more than this times the same command with no history. */
const FLAT = 1.15;

/** Bytes read from each of `paths` in an strace log (-f, open/openat/read/pread64/close, -s 0). */
function bytesRead(log, paths) {
  const fds = new Map();
  const out = new Map();
  for (const line of log.split('\n')) {
    const open = /open(?:at)?\((?:AT_FDCWD, )?"([^"]+)".*\)\s+=\s+(\d+)$/.exec(line);
    if (open !== null) {
      if (paths.includes(open[1])) fds.set(open[2], open[1]);
      else fds.delete(open[2]);
      continue;
    }
    const io = /(?:read|pread64)\((\d+),.*\)\s+=\s+(\d+)$/.exec(line);
    if (io !== null && fds.has(io[1])) out.set(fds.get(io[1]), (out.get(fds.get(io[1])) ?? 0) + Number(io[2]));
    const close = /close\((\d+)\)/.exec(line);
    if (close !== null) fds.delete(close[1]);
  }
  return out;
}

export async function sectionHistory() {
  console.error('\n== the cost of history ==');
  if (!hasCommand('hyperfine')) {
    row('history', 'cost of history', 'not measured', '', '', 'skip');
    note('hyperfine is missing: install it with `sudo apt-get install -y hyperfine` (Debian/Ubuntu), then run `npm run bench -- --only history`');
    return;
  }
  const sizes = quick ? [1_000, 10_000] : [100_000, 1_000_000];
  const runSizes = quick ? [1_000, 10_000] : opt.big ? [100_000, 1_000_000] : [100_000];
  const empty = emptyState();
  const states = {
    optouts: sizes.map((n) => ({ n, dir: optOutState(n) })),
    keys: sizes.map((n) => ({ n, dir: keyState(n) })),
    runs: runSizes.map((n) => ({ n, dir: runState(n) })),
  };
  if (!opt.big && !quick) note('history: runs at 0 and 100,000 (1,000,000 runs take ~8 GB of disk: --big adds them)');
  const node20 = Number(process.versions.node.split('.')[0]) < 22;
  const startTarget = node20 ? 1.8 : 1.6;
  const number = '+447911123456';
  const msg = ['--to', number, '--from', 'Acme', '--text', 'hi', '--account', ACCOUNT];
  const under = (dir, argv) => ['env', `MSGR_CONFIG_DIR=${dir}`, ...argv];

  // Start-up: every command once per state, all in the same shuffled rounds.
  const cmds = [{ name: 'node -e 0', argv: under(empty, [NODE, '-e', '0']) }];
  const figures = [];
  const family = (what, argv, list) => {
    const base = { name: `${what}, no history`, argv: under(empty, argv) };
    cmds.push(base);
    for (const { n, dir, of } of list) {
      const c = { name: `${what}, ${fmtInt(n)} ${of}`, argv: under(dir, argv) };
      cmds.push(c);
      figures.push({ c, base, what });
    }
    return base;
  };
  const sendBase = family('send --dry-run', [NODE, MSGR, 'send', '--dry-run', ...msg], [...states.optouts.map((s) => ({ ...s, of: 'opt-outs' })), ...states.keys.slice(-1).map((s) => ({ ...s, of: 'keys' })), ...states.runs.slice(-1).map((s) => ({ ...s, of: 'runs' }))]);
  family('optout check', [NODE, MSGR, 'optout', 'check', number, '--account', ACCOUNT], states.optouts.map((s) => ({ ...s, of: 'opt-outs' })));
  family('send --once (a new key) --dry-run', [NODE, MSGR, 'send', '--once', 'order-new', '--dry-run', ...msg, '--base-url', HISTORY_BASE_URL], states.keys.map((s) => ({ ...s, of: 'keys' })));

  const env = benchEnv();
  // The first command over a store makes its index (read whole, once): timed on its own, before.
  for (const { n, dir } of states.optouts) {
    rmSync(join(dir, 'optouts', `${ACCOUNT}.jsonl.index`), { force: true });
    const t0 = process.hrtime.bigint();
    const r = spawnSync('env', under(dir, [NODE, MSGR, 'optout', 'check', number, '--account', ACCOUNT]), { env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status === 0) row('history', `the store read whole once (its index made): optout check, ${fmtInt(n)} opt-outs`, fmtMs(ms / 1000), '', 'the first command after an upgrade, a hand edit or a crash between a write and its index', 'info');
    else note(`history: optout check over ${fmtInt(n)} opt-outs failed: ${tail(r.stderr, 300)}`);
  }

  const working = workingCommands('history', cmds, env, () => `<= ${FLAT}x no history`);
  const rounds = hyperfineRounds('history', working, env);
  const wall = (name) => overRounds(rounds, name);
  const e0 = wall('node -e 0');
  for (const { c, base, what } of figures) {
    const m = wall(c.name);
    const b = wall(base.name);
    if (m === undefined || b === undefined) continue;
    const ratio = m / b;
    const vsNode = what === 'send --dry-run' && e0 !== undefined ? `; with this history ${(m / e0).toFixed(2)}x node -e 0 (the start-up target: ${startTarget}x)` : '';
    row('history', `start-up: ${c.name}`, `${ratio.toFixed(2)}x no history (${fmtMs(m)}; rounds ${roundRatios(rounds, c.name, base.name)})`, `<= ${FLAT}x no history`, `no history: ${fmtMs(b)}${vsNode}`, passMiss(ratio <= FLAT));
  }
  if (e0 !== undefined && wall(sendBase.name) !== undefined) note(`history: node -e 0 ${fmtMs(e0)}; send --dry-run with no history ${(wall(sendBase.name) / e0).toFixed(2)}x node -e 0`);

  // A bulk preflight: 1,000 rows, every row checked against the store (100 of them in it).
  const csv = historyCsv();
  const bulk = (dir) => under(dir, [NODE, MSGR, 'send-bulk', csv, '--dry-run', '--from', 'Acme', '--text', 'Hi {{name}}', '--account', ACCOUNT, '-q']);
  const bulkBase = { name: 'send-bulk --dry-run (1,000 rows), no history', argv: bulk(empty) };
  const bulkCmds = [bulkBase, ...states.optouts.map(({ n, dir }) => ({ name: `send-bulk --dry-run (1,000 rows), ${fmtInt(n)} opt-outs`, argv: bulk(dir), n })), ...states.runs.map(({ n, dir }) => ({ name: `send-bulk --dry-run (1,000 rows), ${fmtInt(n)} runs`, argv: bulk(dir), n }))];
  const bulkWorking = workingCommands('history', bulkCmds, env, () => `<= ${FLAT}x no history`);
  // What the dry run says it left out: the store's 100 rows of the file, no more, no fewer.
  for (const { dir, n } of states.optouts) {
    const r = spawnSync('env', [...bulk(dir).slice(0, -1), '--json'], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    let suppressed;
    try {
      suppressed = JSON.parse(r.stdout).suppressed;
    } catch {
      suppressed = undefined;
    }
    if (suppressed !== SUPPRESSED_ROWS) note(`history: the dry run over ${fmtInt(n)} opt-outs left out ${suppressed ?? '?'} rows, not ${SUPPRESSED_ROWS}: ${tail(r.stderr, 200)}`);
  }
  const bulkRounds = hyperfineRounds('history-bulk', bulkWorking, env, { runs: quick ? 2 : 5, warmup: 1 });
  const bw = (name) => overRounds(bulkRounds, name);
  for (const c of bulkWorking.slice(1)) {
    const m = bw(c.name);
    const b = bw(bulkBase.name);
    if (m === undefined || b === undefined) continue;
    const ratio = m / b;
    row('history', `bulk: ${c.name}`, `${ratio.toFixed(2)}x no history (${fmtMs(m)}; rounds ${roundRatios(bulkRounds, c.name, bulkBase.name)})`, `<= ${FLAT}x no history`, `no history: ${fmtMs(b)}`, passMiss(ratio <= FLAT));
  }

  // How much of the store a bulk run reads: at most all of it, once, whatever it holds.
  if (hasCommand('strace')) {
    for (const { n, dir } of states.optouts) {
      const trace = join(TMP, `strace-${n}.txt`);
      const r = spawnSync('strace', ['-f', '-qq', '-s', '0', '-e', 'trace=open,openat,read,pread64,close', '-o', trace, ...bulk(dir)], { env, encoding: 'utf8' });
      if (r.status !== 0 || !existsSync(trace)) {
        note(`history: strace of the bulk dry run failed: ${tail(r.stderr, 200)}`);
        continue;
      }
      const store = join(dir, 'optouts', `${ACCOUNT}.jsonl`);
      const read = bytesRead(readFileSync(trace, 'utf8'), [store, `${store}.index`]);
      const size = statSync(store).size;
      row('history', `bulk: bytes of the store of ${fmtInt(n)} opt-outs a 1,000-row dry run reads`, `${fmtInt(read.get(store) ?? 0)} of ${fmtInt(size)} (its index: ${fmtInt(read.get(`${store}.index`) ?? 0)} bytes)`, '<= the store once', 'strace -f: read and pread64 of its file descriptors', passMiss((read.get(store) ?? 0) <= size));
    }
  } else note('history: strace is missing (apt-get install -y strace): how much of the store a bulk run reads is not counted');
  note(`history: ${cfg.rounds} rounds of hyperfine -N in a shuffled order, each command under \`env MSGR_CONFIG_DIR=<state>\` (node -e 0 too); start-up ${cfg.runs} runs a round, bulk ${quick ? 2 : 5}; a figure is the command's median over the rounds against the same command with an empty state folder`);
}
