// `npm run bench -- --only startup --tricks`: each start-up trick switched off and on in the same
// hyperfine rounds. A build trick (scripts/build/tricks.mjs) is measured with a second install
// (bin/, package.json, dist/) built with the trick flipped into bench/.data/tricks/<name>-<on|off>/;
// Node's own compile cache by turning it off at run time (NODE_DISABLE_COMPILE_CACHE); the V8
// flag a real send sets by a copy of the bundle without it. A trick stays where it buys at least
// 10 % of a start-up figure on the Node version it serves (README, "Performance").
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { TRICKS } from '../scripts/build/tricks.mjs';

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
  const add = (trick, on, figures, argv) => {
    for (const figure of figures) if (commands[figure] !== undefined) out.push({ trick, figure, on, name: `${figure} [${trick} ${on ? 'on' : 'off'}]`, argv: argv(commands[figure]) });
  };
  const both = ['msgr send --dry-run', 'msgr send (HTTPS)'];
  const bins = new Map();
  for (const [trick, byDefault] of Object.entries(TRICKS)) {
    const on = !byDefault;
    const bin = install(root, join(data, 'tricks', `${trick}-${on ? 'on' : 'off'}`), `${trick}=${on ? 'on' : 'off'}`);
    bins.set(trick, bin);
    add(trick, on, trick === 'undici-edit' ? ['msgr send (HTTPS)'] : both, (args) => [node, bin, ...args]);
  }
  // Node's own compile cache, where the real install uses it (Node 22.1+ without build-made
  // caches): both sides through env(1), so both pay for it.
  const nodeCache = typeof createRequire(import.meta.url)('node:module').enableCompileCache === 'function' && !TRICKS['code-cache'];
  if (nodeCache) {
    add('compile-cache', false, both, (args) => ['env', 'NODE_DISABLE_COMPILE_CACHE=1', node, msgr, ...args]);
    add('compile-cache', true, both, (args) => ['env', '-u', 'NODE_DISABLE_COMPILE_CACHE', node, msgr, ...args]);
  }
  // --liftoff-only, set by a real send before undici loads: a copy of the bundle without it,
  // beside one with it, both without build-made code caches (a cache would still hold the flag).
  const plain = TRICKS['code-cache'] ? bins.get('code-cache') : msgr;
  const dir = join(data, 'tricks', 'liftoff-only-off');
  const bin = install(root, dir, 'code-cache=off');
  const bundle = join(dir, 'dist', 'msgr.cjs');
  const source = readFileSync(bundle, 'utf8');
  const flag = 'setFlagsFromString("--liftoff-only")';
  if (source.split(flag).length !== 2) throw new Error(`bench: no single ${flag} in the bundle`);
  writeFileSync(bundle, source.replace(flag, 'setFlagsFromString("")'));
  add('liftoff-only', false, ['msgr send (HTTPS)'], (args) => [node, bin, ...args]);
  if (plain !== msgr) add('liftoff-only', true, ['msgr send (HTTPS)'], (args) => [node, plain, ...args]);
  return out;
}

/**
 * One row per trick and figure: the on and off figures as ratios to `node -e 0` in the same
 * round, the gain (1 - on/off) of the median round, and every round's.
 */
export function trickRows(variants, rounds, defaultName, row) {
  const ratio = (results, name) => results.get(name).median / results.get('node -e 0').median;
  const seen = new Set();
  for (const v of variants) {
    const key = `${v.trick}\0${v.figure}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // Both sides of a runtime switch are variants; a build trick's other side is the real install.
    const pair = variants.filter((x) => x.trick === v.trick && x.figure === v.figure);
    const onName = pair.find((x) => x.on)?.name ?? defaultName(v.figure);
    const offName = pair.find((x) => !x.on)?.name ?? defaultName(v.figure);
    const per = rounds.filter((r) => r.has(onName) && r.has(offName)).map((r) => ({ on: ratio(r, onName), off: ratio(r, offName), ms: [r.get(onName).median, r.get(offName).median] }));
    if (per.length === 0) continue;
    for (const p of per) p.gain = 1 - p.on / p.off;
    const sorted = [...per].sort((a, b) => a.gain - b.gain);
    const mid = sorted[Math.floor((sorted.length - 1) / 2)];
    const fmt = (p) => `${p.on.toFixed(2)}/${p.off.toFixed(2)}`;
    row(
      'tricks',
      `${v.trick}: ${v.figure}`,
      `on ${mid.on.toFixed(2)}x (${(mid.ms[0] * 1000).toFixed(1)} ms), off ${mid.off.toFixed(2)}x (${(mid.ms[1] * 1000).toFixed(1)} ms): gain ${(mid.gain * 100).toFixed(0)} %`,
      `>= ${KEEP_AT * 100} %`,
      `rounds on/off ${per.map(fmt).join(', ')}; ${TRICKS[v.trick] === false ? 'off' : 'on'} by default here`,
      mid.gain >= KEEP_AT ? 'pays' : 'no',
    );
  }
}
