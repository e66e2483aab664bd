// Section startup: cold start of msgr --version, --help, send --dry-run and a real HTTPS send,
// timed with hyperfine against `node -e 0` (and the real send against a bare node:https POST and
// curl) in the same rounds; with --tricks, each start-up trick off and on (bench/tricks.mjs).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import process from 'node:process';
import { ACCOUNT, API_KEY, BENCH, DATA, MSGR, NODE, ROOT, cfg, opt } from '../lib/config.mjs';
import { hyperfineRounds, overRounds, roundRatios, workingCommands } from '../lib/hyperfine.mjs';
import { TMP, benchEnv, hasCommand, startServer, tail } from '../lib/processes.mjs';
import { fmtMs, note, passMiss, row } from '../lib/results.mjs';
import { trickRows, trickVariants } from '../tricks.mjs';

export async function sectionStartup() {
  console.error('\n== start-up (hyperfine) ==');
  if (!hasCommand('hyperfine')) {
    row('startup', 'cold start', 'not measured', '', '', 'skip');
    note('hyperfine is missing: install it with `sudo apt-get install -y hyperfine` (Debian/Ubuntu), then run `npm run bench -- --only startup`');
    return;
  }
  const msg = ['--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--account', ACCOUNT];
  // Node 20 (end of life) may take longer for the dry run.
  const node20 = Number(process.versions.node.split('.')[0]) < 22;
  /** @type {Array<{name: string, argv: string[], target?: number, targetOf?: string, baselineOf?: string}>} */
  const cmds = [
    { name: 'node -e 0', argv: [NODE, '-e', '0'] },
    { name: 'msgr --version', argv: [NODE, MSGR, '--version'], target: 1.2 },
    { name: 'msgr --help', argv: [NODE, MSGR, '--help'], target: 1.3 },
    { name: 'msgr send --dry-run', argv: [NODE, MSGR, 'send', '--dry-run', ...msg], target: node20 ? 1.8 : 1.6 },
  ];

  let https;
  if (hasCommand('openssl')) {
    const cert = join(TMP, 'cert.pem');
    const key = join(TMP, 'key.pem');
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { encoding: 'utf8' });
    if (r.status !== 0) note(`openssl could not make a certificate: ${tail(r.stderr)}`);
    else {
      https = await startServer(NODE, [join(BENCH, 'https-server.mjs'), cert, key], { name: 'https-server', match: (line) => (/^\d+$/.test(line.trim()) ? line.trim() : undefined) });
      const base = `https://localhost:${https.value}`;
      const floor = 'node https.request (floor)';
      cmds.push({ name: 'msgr send (HTTPS)', argv: [NODE, MSGR, 'send', ...msg, '--base-url', base, '--ca-file', cert], target: 1.25, targetOf: floor });
      // The floor for one HTTPS POST: what a user with curl pays.
      const body = JSON.stringify({ accountReference: ACCOUNT, channel: 'SMS', from: 'Acme', body: { text: 'hi' }, recipients: [{ msisdn: '+447911123456' }] });
      // The floor for any Node program: one bare node:https POST (Node 20 builds its root store
      // for any verified TLS context, ~30 ms here, and loads tls, crypto and http).
      cmds.push({ name: floor, argv: [NODE, join(BENCH, 'https-floor.cjs'), base, cert, API_KEY, body], baselineOf: 'msgr send (HTTPS)' });
      // What undici itself costs any program (msgr's HTTP client, a fixed choice): the package
      // as its README uses it, one POST.
      cmds.push({ name: 'undici request (bare)', argv: [NODE, join(BENCH, 'undici-floor.cjs'), base, cert, API_KEY, body], baselineOf: 'msgr send (HTTPS)' });
      if (hasCommand('curl')) {
        cmds.push({ name: 'curl POST (HTTPS)', argv: ['curl', '-sS', '-o', '/dev/null', '--cacert', cert, '-X', 'POST', '-H', `X-Api-Key: ${API_KEY}`, '-H', 'Content-Type: application/json', '--data', body, `${base}/v2/messages`], baselineOf: 'msgr send (HTTPS)' });
      }
    }
  } else note('openssl is missing: the real HTTPS send is not measured');

  let variants = [];
  if (opt.tricks) {
    console.error('bench: building an install per trick variant in bench/.data/tricks/');
    const commands = Object.fromEntries(cmds.filter((c) => c.argv[1] === MSGR).map((c) => [c.name, c.argv.slice(2)]));
    variants = trickVariants({ root: ROOT, data: DATA, node: NODE, msgr: MSGR, commands });
    cmds.push(...variants);
  }
  const env = benchEnv();
  const working = workingCommands('startup', cmds, env, (c) => (c.target !== undefined ? `<= ${c.target}x node -e 0` : ''));
  let rounds;
  try {
    rounds = hyperfineRounds('startup', working, env);
  } finally {
    await https?.stop();
  }

  // Each command's time is its median over the rounds (every round runs every command, in
  // shuffled order); a figure is that over the median of `node -e 0`, or of its own floor
  // (targetOf). Each round's own ratio is printed beside it.
  const wall = (name) => overRounds(rounds, name);
  const base = wall('node -e 0');
  for (const c of working) {
    if (c.target === undefined) continue;
    const m = wall(c.name);
    const of = c.targetOf !== undefined ? wall(c.targetOf) : base;
    if (m === undefined || of === undefined) continue;
    const ratio = m / of;
    const extras = working.filter((b) => b.baselineOf === c.name).flatMap((b) => {
      const bm = wall(b.name);
      return bm === undefined ? [] : [`${b.name}: ${fmtMs(bm)} (${(bm / base).toFixed(2)}x node -e 0)`];
    });
    const baseline = [`node -e 0: ${fmtMs(base)}`, ...(c.targetOf !== undefined ? [`msgr: ${fmtMs(m)}, ${(m / base).toFixed(2)}x node -e 0`] : []), ...extras].join('; ');
    const spread = rounds.length > 1 ? `; rounds ${roundRatios(rounds, c.name, c.targetOf ?? 'node -e 0')}` : '';
    row('startup', `cold start: ${c.name}`, `${ratio.toFixed(2)}x (${fmtMs(m)}${spread})`, `<= ${c.target}x ${c.targetOf ?? 'node -e 0'}`, baseline, passMiss(ratio <= c.target));
  }
  if (variants.length > 0) trickRows(variants.filter((v) => working.includes(v)), rounds, (figure) => figure, row, note);
  note(`start-up: ${cfg.rounds} round${cfg.rounds === 1 ? '' : 's'} of hyperfine -N (no shell) over all commands in a shuffled order, each ${cfg.runs === 1 ? 'one run' : `a median of ${cfg.runs} runs after ${cfg.warmup} warm-up runs`}; a figure is the command's median over the rounds against node -e 0's (or the floor's); every round's own ratio is listed`);
}
