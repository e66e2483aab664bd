// Which run this is (src/bulk/this-run/open.ts, docs/files.md: "Nothing lost, nothing sent twice" and
// "Running a file again"), run in-process against a fake API (test/support/in-process.ts): the
// kind decided once from the command and the disk; a new run over an unfinished one refused, with
// commands that are then accepted; an abandoned journal put back when the restart sends nothing;
// a journal kept elsewhere found from the file; piped data an unfinished run read refused again;
// a file its earlier runs sent to refused until the command says what it means; a campaign key's
// run done once. The e2e suite spawns the CLI for the same rules; these name the rule that broke.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { resolveCampaign } from '../../../../src/commands/send-bulk/resolve-campaign.js';
import { openRunState, type Opened } from '../../../../src/bulk/this-run/open.js';
import { ExitCode, type MsgrError } from '../../../../src/errors.js';
import { createUi } from '../../../../src/output/ui.js';
import { accept, fakeApi, type FakeApi, type FakeRequest } from '../../../support/fake-api.js';
import { fakeContext } from '../../../support/fake-context.js';
import { bulkFiles, bulkOptions, sendBulk } from '../../../support/in-process.js';

const numbersOf = (r: FakeRequest): string[] => (r.body.recipients ?? []).map((x) => x.msisdn);
const sent = (api: FakeApi): string[] => api.requests.flatMap(numbersOf);

/** `msgr send-bulk ARGV` in-process against a fake API that accepts everything. */
async function send(env: Record<string, string>, argv: string[], input?: string): Promise<{ err: MsgrError | undefined; api: FakeApi; stderr: string }> {
  const api = fakeApi();
  const ctx = fakeContext({ env, http: api.http, ...(input !== undefined ? { input } : {}) });
  const err = await sendBulk(ctx, argv);
  return { err, api, stderr: ctx.err() };
}

/** The same, stopped (Ctrl-C) once its first request is answered: an unfinished run. */
async function stopped(env: Record<string, string>, argv: string[], input?: string): Promise<FakeApi> {
  const stop = new AbortController();
  const api = fakeApi((r, i) => {
    if (i === 0) stop.abort('SIGINT');
    return accept(r, i);
  });
  const ctx = { ...fakeContext({ env, http: api.http, ...(input !== undefined ? { input } : {}) }), interrupt: stop.signal };
  const err = await sendBulk(ctx, argv);
  assert.equal(err?.exitCode, ExitCode.INTERRUPTED, err?.message);
  return api;
}

/** Which run the command opens, and nothing else: its journal moved aside is put back, its lock released. */
async function opens(env: Record<string, string>, argv: string[]): Promise<Opened['kind']> {
  const ctx = fakeContext({ env });
  const campaign = await resolveCampaign(ctx, await bulkOptions(argv));
  const cleanups: Array<() => void> = [];
  try {
    return (await openRunState(ctx, createUi(ctx, { quiet: true }), campaign, (fn) => cleanups.push(fn))).kind;
  } finally {
    for (const fn of cleanups.reverse()) fn();
  }
}

/** `msgr send-bulk …` as printed in a hint, split as a shell would (single quotes only: shellQuote's). */
function argvOf(command: string): string[] {
  const words = [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : (m[2] as string)));
  assert.deepEqual(words.slice(0, 2), ['msgr', 'send-bulk'], command);
  return words.slice(2);
}

/** The one run folder of the state folder (a file's), and the journals in it. */
function runFolder(env: Record<string, string>): { dir: string; journals: string[] } {
  const root = join(env.MSGR_CONFIG_DIR as string, 'runs');
  const [name] = readdirSync(root).filter((d) => !d.startsWith('stdin-'));
  assert.ok(name !== undefined, `no run folder in ${root}`);
  const dir = join(root, name);
  return { dir, journals: readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort() };
}

const runIdOf = (journal: string): string => (JSON.parse(readFileSync(journal, 'utf8').split('\n')[0] as string) as { runId: string }).runId;

describe('which run this is', () => {
  test('decided once from what the command asks and what is on disk: new, resume, restart, done', async () => {
    const c = bulkFiles(4, 'msgr-open-unit-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1'];
    assert.equal(await opens(c.env, argv), 'new');
    await stopped(c.env, argv);
    assert.equal(await opens(c.env, [c.file, '--resume']), 'resume');
    assert.equal(await opens(c.env, [...argv, '--restart']), 'restart');
    // Opening a restart abandons nothing until its journal is written: the run is still there.
    assert.equal(await opens(c.env, [...argv, '--restart', '--dry-run']), 'restart');
    assert.equal(await opens(c.env, [c.file, '--resume']), 'resume');
    assert.equal((await send(c.env, [c.file, '--resume'])).err, undefined);
    assert.equal(await opens(c.env, [c.file, '--resume']), 'done');
  });

  test('a new run over an unfinished one is refused; the commands its hint offers are accepted', async () => {
    const c = bulkFiles(6, 'msgr-open-unit-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1'];
    const first = await stopped(c.env, argv);
    const { journals } = runFolder(c.env);
    assert.deepEqual(journals, ['journal.jsonl']);
    const again = await send(c.env, argv);
    assert.equal(again.err?.exitCode, ExitCode.USAGE);
    assert.match(again.err?.message ?? '', /^an unfinished run of this file exists \(run \S+, started /);
    assert.match(again.err?.hint ?? '', /Continue it with --resume \(rows already accepted are not sent again\), or abandon it with --restart/);
    assert.equal(again.api.requests.length, 0);
    // --resume sends what the first run did not; nothing twice.
    const resumed = await send(c.env, [c.file, '--resume']);
    assert.equal(resumed.err, undefined, resumed.err?.message);
    assert.deepEqual([...sent(first), ...sent(resumed.api)], c.numbers);
  });

  test('--restart abandons the unfinished run, keeping its journal, and leaves out the rows it accepted', async () => {
    const c = bulkFiles(6, 'msgr-open-unit-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1'];
    const first = await stopped(c.env, argv);
    const run = runIdOf(join(runFolder(c.env).dir, 'journal.jsonl'));
    const restart = await send(c.env, [...argv, '--restart']);
    assert.equal(restart.err, undefined, restart.err?.message);
    assert.deepEqual(sent(restart.api), c.numbers.filter((n) => !sent(first).includes(n)));
    assert.ok(runFolder(c.env).journals.includes(`journal.${run}.abandoned.jsonl`), runFolder(c.env).journals.join(', '));
    assert.match(restart.stderr, new RegExp(`abandoned run ${run}; its journal is kept as `));
  });

  test('a restart that stops before sending puts the abandoned journal back: the run is still the file\'s', async () => {
    const c = bulkFiles(6, 'msgr-open-unit-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1'];
    await stopped(c.env, argv);
    const { dir } = runFolder(c.env);
    const run = runIdOf(join(dir, 'journal.jsonl'));
    // The file gets an invalid row: the restart's preflight refuses it, nothing is sent.
    writeFileSync(c.file, `${readFileSync(c.file, 'utf8')}not a number,X\n`);
    const restart = await send(c.env, [...argv, '--restart']);
    assert.equal(restart.err?.exitCode, ExitCode.USAGE, restart.err?.message);
    assert.equal(restart.api.requests.length, 0);
    assert.deepEqual(runFolder(c.env).journals, ['journal.jsonl']);
    assert.equal(runIdOf(join(dir, 'journal.jsonl')), run);
  });

  test('a journal kept elsewhere (--journal) is found from the file: named in the refusal, and resumed with the command it prints', async () => {
    const c = bulkFiles(6, 'msgr-open-unit-');
    const journal = join(c.dir, 'kept', 'campaign.jsonl');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1'];
    const first = await stopped(c.env, [...argv, '--journal', journal]);
    // A new run of the file without --journal is that run's business.
    const fresh = await send(c.env, argv);
    assert.equal(fresh.err?.exitCode, ExitCode.USAGE);
    assert.match(fresh.err?.message ?? '', new RegExp(`an unfinished run of this file exists .*; its journal is kept at ${journal}`));
    // --resume without it looks in the file's own folder, and says where the run is.
    const lost = await send(c.env, [c.file, '--resume']);
    assert.equal(lost.err?.exitCode, ExitCode.USAGE);
    assert.match(lost.err?.message ?? '', new RegExp(`keeps its journal at ${journal}$`));
    const command = /Continue it with: (msgr send-bulk .*)$/.exec(lost.err?.hint ?? '')?.[1];
    assert.ok(command !== undefined, lost.err?.hint);
    assert.ok(argvOf(command).includes(journal), command);
    const resumed = await send(c.env, argvOf(command));
    assert.equal(resumed.err, undefined, resumed.err?.message);
    assert.deepEqual([...sent(first), ...sent(resumed.api)], c.numbers);
    assert.equal(existsSync(join(runFolder(c.env).dir, 'journal.jsonl')), false);
  });

  test('piped data an unfinished run read is that run again: refused, with the command that continues it; other data is a new run', async () => {
    const c = bulkFiles(6, 'msgr-open-unit-');
    const data = readFileSync(c.file, 'utf8');
    const argv = ['-', '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1'];
    const first = await stopped(c.env, argv, data);
    const again = await send(c.env, argv, data);
    assert.equal(again.err?.exitCode, ExitCode.USAGE);
    assert.match(again.err?.message ?? '', /^an unfinished run of this data exists \(run \S+, started \S+, read the same data from stdin\)/);
    assert.equal(again.api.requests.length, 0);
    const other = await send(c.env, argv, 'msisdn\n+447911199999\n');
    assert.equal(other.err, undefined, other.err?.message);
    assert.deepEqual(sent(other.api), ['+447911199999']);
    // The hint's command resumes the run from its copy of the data: nothing is piped in.
    const command = /Continue it with: (msgr send-bulk \S.*?) \(rows already accepted/.exec(again.err?.hint ?? '')?.[1];
    assert.ok(command !== undefined, again.err?.hint);
    const resumed = await send(c.env, argvOf(command), '');
    assert.equal(resumed.err, undefined, resumed.err?.message);
    assert.deepEqual([...sent(first), ...sent(resumed.api)], c.numbers);
  });
});

describe('a file run again', () => {
  test('numbers an earlier run accepted stop the run until the command says what it means: --skip-sent leaves them out, --again sends again', async () => {
    const c = bulkFiles(3, 'msgr-open-unit-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi'];
    assert.equal((await send(c.env, argv)).err, undefined);
    writeFileSync(c.file, `${readFileSync(c.file, 'utf8')}+447911188888,New\n`);
    const again = await send(c.env, argv);
    assert.equal(again.err?.exitCode, ExitCode.USAGE);
    assert.match(again.err?.message ?? '', /this run would message 3 rows whose numbers run \S+ \(finished [^)]+\) already sent to \(with --skip-sent it sends to 1, with --again to 4\); nothing was sent$/);
    assert.match(again.err?.hint ?? '', /^Say which you mean: add --skip-sent .*, or --again /);
    assert.equal(again.api.requests.length, 0);
    const skipped = await send(c.env, [...argv, '--skip-sent']);
    assert.equal(skipped.err, undefined, skipped.err?.message);
    assert.deepEqual(sent(skipped.api), ['+447911188888']);
    const all = await send(c.env, [...argv, '--again']);
    assert.equal(all.err, undefined, all.err?.message);
    assert.deepEqual(sent(all.api), [...c.numbers, '+447911188888']);
  });

  test('a campaign key: the same command again is done, sending nothing; the key with another message is refused', async () => {
    const c = bulkFiles(3, 'msgr-open-unit-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--once', 'spring-1'];
    const first = await send(c.env, argv);
    assert.equal(first.err, undefined, first.err?.message);
    assert.deepEqual(sent(first.api), c.numbers);
    const again = await send(c.env, argv);
    assert.equal(again.err, undefined, again.err?.message);
    assert.equal(again.api.requests.length, 0);
    assert.match(again.stderr, /already done: run \S+ \(--once spring-1\) finished at \S+ \(3 accepted\); nothing was sent/);
    const other = await send(c.env, [c.file, '--from', 'Acme', '--text', 'Bye', '--once', 'spring-1']);
    assert.equal(other.err?.exitCode, ExitCode.USAGE);
    assert.match(other.err?.message ?? '', /^--once spring-1 was used for run \S+ .*; this command sends another message \(body differs\); nothing was sent$/);
    assert.equal(other.api.requests.length, 0);
  });

  test('a journal that cannot be read stops a new run of its file and is never written over; --restart keeps it aside; runs list shows it', async () => {
    const c = bulkFiles(3, 'msgr-open-unit-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--again'];
    assert.equal((await send(c.env, argv)).err, undefined);
    const { dir } = runFolder(c.env);
    const journal = join(dir, 'journal.jsonl');
    for (const damage of ['', '{}\n', '{"type":"run","vers']) {
      writeFileSync(journal, damage);
      for (const trial of [[], ['--dry-run'], ['--resume']]) {
        const r = await send(c.env, trial[0] === '--resume' ? [c.file, '--resume'] : [...argv, ...trial]);
        assert.equal(r.err?.exitCode, ExitCode.USAGE, `${JSON.stringify(damage)} ${trial.join(' ')}`);
        assert.match(r.err?.message ?? '', /^the journal of the last run of \S+list\.csv, \S+journal\.jsonl, cannot be read \(it is (empty|not a msgr journal .*)\); it may be the only record of whom that run messaged, and it is not written over; nothing was sent$/);
        assert.equal(r.api.requests.length, 0);
        assert.equal(readFileSync(journal, 'utf8'), damage, 'never written over');
      }
    }
    const r = await send(c.env, argv);
    assert.match(r.err?.hint ?? '', /To start anew all the same: msgr .*--restart \(the journal is kept aside as journal\.unreadable-<time>\.jsonl/);
    const { listRuns } = await import('../../../../src/bulk/runs-door.js');
    const listed = await listRuns(fakeContext({ env: c.env }));
    assert.deepEqual(listed.unreadable.map((u) => [u.journal, u.why]), [[journal, 'it is not a msgr journal (none of its lines is a run header)']]);
    const restart = await send(c.env, [...argv, '--restart']);
    assert.equal(restart.err, undefined, restart.err?.message);
    assert.deepEqual(sent(restart.api), c.numbers);
    const kept = readdirSync(dir).filter((f) => f.startsWith('journal.unreadable-'));
    assert.equal(kept.length, 1);
    assert.equal(readFileSync(join(dir, kept[0] as string), 'utf8'), '{"type":"run","vers');
  });
});
