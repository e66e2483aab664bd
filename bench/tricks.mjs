// `npm run bench -- --only startup --tricks`: each start-up trick switched off and on in the same
// hyperfine rounds. A build trick (scripts/build/tricks.mjs) is measured with a second install
// (bin/, package.json, dist/) built with the trick flipped into bench/.data/tricks/<name>-<on|off>/;
// Node's own compile cache by turning it off at run time (NODE_DISABLE_COMPILE_CACHE). A trick stays where it buys at least
// 10 % of a start-up figure on the Node version it serves (docs/performance.md).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { TRICKS } from '../scripts/build/tricks.mjs';
import { median } from './lib/results.mjs';

const KEEP_AT = 0.1;

/** A copy of the install in `dir` with dist/ built with `setting` (MSGR_BUILD_TRICKS). */
function install(root, dir, setting) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const p of ['bin', 'package.json']) cpSync(join(root, p), join(dir, p), { recursive: true });
  const r = spawnSync(process.execPath, ['scripts/build.mjs', '--out', join(dir, 'dist')], { cwd: root, env: { ...process.env, MSGR_BUILD_TRICKS: setting }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build with MSGR_BUILD_TRICKS=${setting} failed: ${r.stderr}`);
  return join(dir, 'bin', 'msgr.js');
}

/**
 * The variants to time beside the real install. `commands` maps a start-up figure's name to its
 * argv after the entry point (bin/msgr.js): each variant runs the figures its trick can change.
 * Returns [{trick, figure, default: boolean (the real install has it on), name, argv}].
 */
export function trickVariants({ root, data, node, msgr, commands }) {
  const out = [];
  // Installs of tricks since removed go too.
  rmSync(join(data, 'tricks'), { recursive: true, force: true });
  const add = (trick, on, figures, argv) => {
    for (const figure of figures) if (commands[figure] !== undefined) out.push({ trick, figure, on, name: `${figure} [${trick} ${on ? 'on' : 'off'}]`, argv: argv(commands[figure]) });
  };
  const both = ['msgr send --dry-run', 'msgr send (HTTPS)'];
  for (const [trick, byDefault] of Object.entries(TRICKS)) {
    const on = !byDefault;
    const bin = install(root, join(data, 'tricks', `${trick}-${on ? 'on' : 'off'}`), `${trick}=${on ? 'on' : 'off'}`);
    add(trick, on, trick === 'liftoff-only' ? ['msgr send (HTTPS)'] : both, (args) => [node, bin, ...args]);
  }
  // Node's own compile cache, where the real install uses it (Node 22.1+ without build-made
  // caches): both sides through env(1), so both pay for it.
  const nodeCache = typeof createRequire(import.meta.url)('node:module').enableCompileCache === 'function' && !TRICKS['code-cache'];
  if (nodeCache) {
    add('compile-cache', false, both, (args) => ['env', 'NODE_DISABLE_COMPILE_CACHE=1', node, msgr, ...args]);
    add('compile-cache', true, both, (args) => ['env', '-u', 'NODE_DISABLE_COMPILE_CACHE', node, msgr, ...args]);
  }
  return out;
}

/**
 * One row per trick and figure: the on and off figures (each command's median over the rounds,
 * also as a ratio to `node -e 0`'s), the gain 1 - on/off in wall time, which decides, and in CPU
 * time (user + system), which a busy machine disturbs less. Every round's on/off ratios in a note.
 */
export function trickRows(variants, rounds, defaultName, row, note) {
  const over = (name, pick) => median(rounds.filter((r) => r.has(name)).map((r) => pick(r.get(name))));
  const wall = (name) => over(name, (x) => x.median);
  const cpu = (name) => over(name, (x) => x.user + x.system);
  const base = wall('node -e 0');
  const seen = new Set();
  for (const v of variants) {
    const key = `${v.trick}\0${v.figure}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // Both sides of a runtime switch are variants; a build trick's other side is the real install.
    const pair = variants.filter((x) => x.trick === v.trick && x.figure === v.figure);
    const onName = pair.find((x) => x.on)?.name ?? defaultName(v.figure);
    const offName = pair.find((x) => !x.on)?.name ?? defaultName(v.figure);
    const [on, off] = [wall(onName), wall(offName)];
    const gain = 1 - on / off;
    const cpuGain = 1 - cpu(onName) / cpu(offName);
    const perRound = rounds.filter((r) => r.has(onName) && r.has(offName)).map((r) => `${(r.get(onName).median * 1000).toFixed(0)}/${(r.get(offName).median * 1000).toFixed(0)}`);
    row(
      'tricks',
      `${v.trick}: ${v.figure}`,
      `on ${(on * 1000).toFixed(1)} ms = ${(on / base).toFixed(2)}x, off ${(off * 1000).toFixed(1)} ms = ${(off / base).toFixed(2)}x: gain ${(gain * 100).toFixed(0)} % (CPU ${(cpuGain * 100).toFixed(0)} %)`,
      `>= ${KEEP_AT * 100} %`,
      `${TRICKS[v.trick] === false ? 'off' : 'on'} by default on this Node`,
      gain >= KEEP_AT ? 'pays' : 'no',
    );
    note(`${v.trick}, ${v.figure}: on/off ms per round ${perRound.join(', ')}`);
  }
}
