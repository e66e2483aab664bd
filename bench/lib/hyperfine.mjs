// Start-up timing shared by the startup and exe sections: each command run once (a broken one
// would make hyperfine abort the whole run), then several hyperfine rounds over all of them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cfg } from './config.mjs';
import { TMP, shellQuote, tail } from './processes.mjs';
import { median, row } from './results.mjs';

/** The list in an order of its own for each round (round 1: as given). */
function shuffled(list, round) {
  const out = [...list];
  let seed = round * 2654435761;
  for (let i = out.length - 1; i > 0 && round > 1; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The commands ({name, argv, target?}) that run (exit 0) with `env`; each broken one is a row of
 * the `section`, with its target's text from `targetText`.
 */
export function workingCommands(section, cmds, env, targetText) {
  const working = [];
  for (const c of cmds) {
    const r = spawnSync(c.argv[0], c.argv.slice(1), { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0) working.push(c);
    else row(section, `cold start: ${c.name}`, `broken (exit ${r.status ?? r.signal})`, targetText(c), tail(r.stderr, 200).replace(/\n/g, ' '), 'error');
  }
  return working;
}

/**
 * cfg.rounds hyperfine runs ("rounds") of all commands, each round in its own shuffled order: on
 * a shared 2-core machine the speed drifts while one command's runs are timed, so one round can
 * favour or penalise a command by a tenth; each round's ratios are taken within the round.
 * Returns one Map (command name -> hyperfine's result) per round.
 */
export function hyperfineRounds(label, cmds, env, { runs = cfg.runs, warmup = cfg.warmup, count = cfg.rounds } = {}) {
  const rounds = [];
  for (let round = 1; round <= count; round++) {
    const json = join(TMP, `hyperfine-${label}-${round}.json`);
    // Every command ran once before; with one run per round, no warm-up either.
    const args = ['-N', '--warmup', String(runs === 1 ? 0 : warmup), '--runs', String(runs), '--export-json', json, '--style', 'basic'];
    for (const c of shuffled(cmds, round)) args.push('-n', c.name, c.argv.map(shellQuote).join(' '));
    console.error(`bench: hyperfine round ${round} of ${count}, ${cmds.length} commands × ${runs} runs`);
    // hyperfine's own report goes to stderr so stdout carries only the table.
    const r = spawnSync('hyperfine', args, { cwd: ROOT, env, stdio: ['ignore', 2, 2] });
    if (r.status !== 0) throw new Error(`hyperfine failed (exit ${r.status})`);
    rounds.push(new Map(JSON.parse(readFileSync(json, 'utf8')).results.map((x) => [x.command, x])));
  }
  return rounds;
}

/** A command's median over the rounds (each round's median wall time, in seconds). */
export function overRounds(rounds, name) {
  return median(rounds.filter((x) => x.has(name)).map((x) => x.get(name).median));
}

/** Each round's own ratio of `name` to `base`, for the figure's text ("rounds 1.02, 0.98, …"). */
export function roundRatios(rounds, name, base) {
  return rounds.map((x) => (x.has(name) && x.has(base) ? (x.get(name).median / x.get(base).median).toFixed(2) : '-')).join(', ');
}
