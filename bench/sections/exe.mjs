// Section exe: the single executable file (`npm run build:exe`, scripts/build/exe.mjs), built by
// the Node that runs the bench (25.5 or later): its build time and size, and its cold start
// against `node -e 0` of that same Node in the same hyperfine rounds (`msgr --version`,
// `msgr send --dry-run`; beside them `node bin/msgr.js send --dry-run`, the npm install's).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { exeName, exeNodeProblem } from '../../scripts/build/exe.mjs';
import { ACCOUNT, MSGR, NODE, ROOT, cfg, opt } from '../lib/config.mjs';
import { hyperfineRounds, overRounds, roundRatios, workingCommands } from '../lib/hyperfine.mjs';
import { benchEnv, hasCommand, tail } from '../lib/processes.mjs';
import { fmtMB, fmtMs, note, passMiss, row } from '../lib/results.mjs';

export async function sectionExe() {
  console.error('\n== the single executable file ==');
  const problem = exeNodeProblem();
  if (problem !== undefined) {
    row('exe', 'single executable file', 'not measured', '', `Node ${process.versions.node} cannot build it`, 'skip');
    note(`the exe section needs Node 25.5 or later to build the binary: e.g. \`npm install --no-save --prefix /tmp/node26 node@26 && PATH=/tmp/node26/node_modules/.bin:$PATH npm run bench -- --only exe\``);
    return;
  }
  const exe = join(ROOT, 'dist', 'exe', exeName());
  if (opt['no-build'] === true && existsSync(exe)) note(`exe: measuring the existing ${exe} (--no-build)`);
  else {
    // Built here, with this Node and its code caches, and timed: dist/ and the binary.
    console.error(`bench: node scripts/build.mjs --exe (Node ${process.versions.node})`);
    const started = performance.now();
    const r = spawnSync(NODE, ['scripts/build.mjs', '--exe'], { cwd: ROOT, encoding: 'utf8' });
    const seconds = (performance.now() - started) / 1000;
    if (r.status !== 0) throw new Error(`npm run build:exe failed: ${tail(r.stderr)}`);
    row('exe', 'build: npm run build:exe (dist/ and the binary)', `${seconds.toFixed(1)} s`, '', tail(r.stderr, 300).split('\n')[0] ?? '', 'info');
  }
  row('exe', `size: dist/exe/${exeName()}`, fmtMB(statSync(exe).size), '', `Node ${process.versions.node} inside`, 'info');
  if (!hasCommand('hyperfine')) {
    row('exe', 'cold start', 'not measured', '', '', 'skip');
    note('hyperfine is missing: install it with `sudo apt-get install -y hyperfine` (Debian/Ubuntu), then run `npm run bench -- --only exe`');
    return;
  }
  const msg = ['--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--account', ACCOUNT];
  const cmds = [
    { name: 'node -e 0', argv: [NODE, '-e', '0'] },
    { name: 'binary --version', argv: [exe, '--version'], target: 1.2 },
    { name: 'binary send --dry-run', argv: [exe, 'send', '--dry-run', ...msg], target: 1.5 },
    { name: 'node bin/msgr.js send --dry-run', argv: [NODE, MSGR, 'send', '--dry-run', ...msg] },
  ];
  const env = benchEnv();
  const working = workingCommands('exe', cmds, env, (c) => (c.target !== undefined ? `<= ${c.target}x node -e 0` : ''));
  const rounds = hyperfineRounds('exe', working, env);
  const base = overRounds(rounds, 'node -e 0');
  const npm = overRounds(rounds, 'node bin/msgr.js send --dry-run');
  for (const c of working) {
    if (c.target === undefined) continue;
    const m = overRounds(rounds, c.name);
    if (m === undefined || base === undefined) continue;
    const ratio = m / base;
    const spread = rounds.length > 1 ? `; rounds ${roundRatios(rounds, c.name, 'node -e 0')}` : '';
    const beside = c.name.endsWith('--dry-run') && npm !== undefined ? `; node bin/msgr.js: ${fmtMs(npm)} (${(npm / base).toFixed(2)}x)` : '';
    row('exe', `cold start: ${c.name}`, `${ratio.toFixed(2)}x (${fmtMs(m)}${spread})`, `<= ${c.target}x node -e 0`, `node -e 0 (Node ${process.versions.node}): ${fmtMs(base)}${beside}`, passMiss(ratio <= c.target));
  }
  note(`exe: ${cfg.rounds} round${cfg.rounds === 1 ? '' : 's'} of hyperfine -N over the binary, node -e 0 of the Node that built it, and node bin/msgr.js, as in the start-up section`);
}
