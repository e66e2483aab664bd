// Which run a start of send-bulk belongs to: one file by any name (a symlink, ./x.csv, an absolute
// path), a run whose journal is kept elsewhere (--journal), and the same data piped in again are
// each the one unfinished run, refused or resumed, never a fresh run that sends everyone accepted
// before the stop a second time (docs/files.md: "Nothing lost, nothing sent twice").
// Run in-process (test/support/in-process.ts): what a user sees, without a process.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runDirFor } from '../../../../src/bulk/history/state-folder.js';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { type ReceivedRequest, type ScriptedResponse, useTestServer } from '../../../support/test-server.js';

const KEY = 'test-key-1234';
const MSG = ['--from', 'Acme', '--text', 'Hello there', '--batch-size', '5', '--concurrency', '1'];

function env(baseUrl: string, configDir: string): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: configDir, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
}

function numbers(n: number, start = 0): string[] {
  return Array.from({ length: n }, (_, i) => `+4479111${String(start + i).padStart(5, '0')}`);
}

function csv(list: string[]): string {
  return `msisdn,name\n${list.map((m, i) => `${m},N${i}`).join('\n')}\n`;
}

function bulk(args: string[], e: Record<string, string>, o: { cwd?: string; input?: string } = {}): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: e, timeoutMs: 60_000, ...o });
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('one run per file, per journal, per piped data', () => {
  const server = useTestServer();
  let accepted: string[] = [];

  const accept = (r: ReceivedRequest): ScriptedResponse => {
    const recipients = (r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? [];
    accepted.push(...recipients.map((x) => x.msisdn));
    return { status: 202, body: { messages: recipients.map((x) => ({ msisdn: x.msisdn, id: `id-${x.msisdn}` })) } };
  };
  /** The first request accepted, then the key refused: the run stops (exit 3), unfinished. */
  const acceptOneThenRefuse = (): void => {
    accepted = [];
    server.requests.length = 0;
    let count = 0;
    server.answer = (r) => (++count <= 1 ? accept(r) : { status: 401, body: { title: 'Unauthorized' } });
  };
  const acceptAll = (): void => {
    server.answer = accept;
  };
  const assertEachOnce = (expected: string[]): void => {
    const dupes = accepted.filter((m, i) => accepted.indexOf(m) !== i);
    assert.deepEqual(dupes, [], 'a recipient got the message twice');
    assert.deepEqual([...accepted].sort(), [...expected].sort());
  };

  test('the same CSV through a symlink, ./, ../ or its absolute path is the same run: refused while unfinished, resumed by any name; a link pointed at another file is another run', async () => {
    const root = tempDir();
    const dir = join(root, 'campaign');
    mkdirSync(dir);
    const config = join(root, 'state');
    const list = numbers(20);
    writeFileSync(join(dir, 'sy.csv'), csv(list));
    symlinkSync('sy.csv', join(dir, 'today.csv'));
    const e = env(server.url, config);

    acceptOneThenRefuse();
    const first = await bulk(['today.csv', ...MSG], e, { cwd: dir });
    assert.equal(first.code, 3, first.stderr);
    assert.deepEqual(accepted, list.slice(0, 5));
    // The printed command names the file itself: the link may point elsewhere tomorrow.
    assert.match(first.stderr, new RegExp(`Resume with: msgr send-bulk ${escape(join(dir, 'sy.csv'))} --resume`));

    acceptAll();
    for (const spelling of ['./sy.csv', 'sy.csv', `../campaign/sy.csv`, join(dir, 'sy.csv'), join(dir, 'today.csv')]) {
      const again = await bulk([spelling, ...MSG], e, { cwd: dir });
      assert.equal(again.code, 2, `${spelling}: ${again.stderr}`);
      assert.match(again.stderr, /^error: an unfinished run of this file exists \(run \S+, started [^)]+\)/m);
    }
    assert.equal(server.requests.length, 2, 'nothing sent by the refused starts');
    const listed = await runInProcess(['runs', 'show', './today.csv'], { env: e, cwd: dir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^file\\s+${escape(join(dir, 'sy.csv'))}$`, 'm'));
    assert.match(listed.stdout, /^state\s+unfinished/m);

    const resumed = await bulk(['./sy.csv', ...MSG, '--resume'], e, { cwd: dir });
    assert.equal(resumed.code, 0, resumed.stderr);
    assertEachOnce(list);
    assert.equal(readdirSync(join(config, 'runs')).length, 1, 'one run folder for every name of the file');

    // cron's today.csv pointed at the next day's file: that file's own run.
    const tomorrow = numbers(4, 100);
    writeFileSync(join(dir, 'next.csv'), csv(tomorrow));
    rmSync(join(dir, 'today.csv'));
    symlinkSync('next.csv', join(dir, 'today.csv'));
    accepted = [];
    const next = await bulk(['today.csv', ...MSG], e, { cwd: dir });
    assert.equal(next.code, 0, next.stderr);
    assert.doesNotMatch(next.stderr, /unfinished|last run of this file/);
    assertEachOnce(tomorrow);
  });

  test('a run kept by --journal elsewhere is the file\'s run: a start without --journal is refused naming it and the command that continues it, --resume names it, msgr runs shows it', async () => {
    const root = tempDir();
    const config = join(root, 'state');
    const list = numbers(20, 200);
    writeFileSync(join(root, 'jj.csv'), csv(list));
    const journal = join(root, 'kept', 'jj-journal.jsonl');
    const e = env(server.url, config);

    acceptOneThenRefuse();
    const first = await bulk(['jj.csv', '--journal', journal, ...MSG], e, { cwd: root });
    assert.equal(first.code, 3, first.stderr);
    assert.deepEqual(accepted, list.slice(0, 5));
    // A resume naming only the journal (a journal from before pointers) leaves the pointer too.
    const [folder] = readdirSync(join(config, 'runs'));
    const pointers = readdirSync(join(config, 'runs', folder ?? ''));
    assert.equal(pointers.length, 1, String(pointers));
    rmSync(join(config, 'runs', folder ?? ''), { recursive: true });
    acceptOneThenRefuse();
    const more = await bulk(['--resume', '--journal', journal, '--concurrency', '1'], e, { cwd: root });
    assert.equal(more.code, 3, more.stderr);
    assert.deepEqual(accepted, list.slice(5, 10));
    assert.deepEqual(readdirSync(join(config, 'runs', folder ?? '')), pointers);

    acceptAll();
    const before = server.requests.length;
    const command = `msgr send-bulk jj.csv --resume --journal ${journal} --concurrency 1`;
    for (const spelling of ['jj.csv', './jj.csv']) {
      const fresh = await bulk([spelling, ...MSG], e, { cwd: root });
      assert.equal(fresh.code, 2, fresh.stderr);
      assert.match(fresh.stderr, new RegExp(`^error: an unfinished run of this file exists \\(run \\S+, started [^)]+\\); its journal is kept at ${escape(journal)}$`, 'm'));
      assert.match(fresh.stderr, new RegExp(`^hint: Continue it with: msgr send-bulk ${escape(spelling)} --resume --journal ${escape(journal)} --concurrency 1 \\(rows already accepted`, 'm'));
    }
    const restart = await bulk(['jj.csv', ...MSG, '--restart'], e, { cwd: root });
    assert.equal(restart.code, 2, restart.stderr);
    assert.match(restart.stderr, /its journal is kept at/);
    const resume = await bulk(['jj.csv', ...MSG, '--resume'], e, { cwd: root });
    assert.equal(resume.code, 2, resume.stderr);
    assert.match(resume.stderr, new RegExp(`^error: nothing to resume in \\S+: the unfinished run \\S+ of this file \\(started [^)]+\\) keeps its journal at ${escape(journal)}$`, 'm'));
    assert.match(resume.stderr, new RegExp(`^hint: Continue it with: ${escape(command)}$`, 'm'));
    assert.equal(server.requests.length, before, 'nothing sent by the refused starts');
    assert.deepEqual(accepted, list.slice(5, 10));
    accepted = list.slice(0, 10);

    const listed = await runInProcess(['runs', 'list', '--json'], { env: e });
    const runs = (JSON.parse(listed.stdout) as { runs: Array<{ journal: string; finished: boolean }> }).runs;
    assert.deepEqual(runs.map((r) => [r.journal, r.finished]), [[journal, false]]);
    const shown = await runInProcess(['runs', 'show', 'jj.csv'], { env: e, cwd: root });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^journal\\s+${escape(journal)}$`, 'm'));

    const resumed = await bulk(['jj.csv', '--resume', '--journal', journal, ...MSG], e, { cwd: root });
    assert.equal(resumed.code, 0, resumed.stderr);
    assertEachOnce(list);
    // Finished, it is the user's file still: prune leaves it where a script looks for it.
    const pruned = await runInProcess(['runs', 'prune', '--older-than', '0m'], { env: e });
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.ok(existsSync(journal), 'runs prune deleted a journal kept by --journal');
    assert.match(pruned.stderr, new RegExp(`kept 1 finished run whose journal is kept by --journal outside msgr's folder \\(yours to delete\\): ${escape(journal)}`));

    // A pointer is followed only to a run of the file itself: another file's unfinished run is
    // not this file's.
    writeFileSync(join(root, 'other.csv'), csv(numbers(10, 400)));
    const otherJournal = join(root, 'kept', 'other.jsonl');
    acceptOneThenRefuse();
    assert.equal((await bulk(['other.csv', '--journal', otherJournal, ...MSG], e, { cwd: root })).code, 3);
    writeFileSync(join(config, 'runs', folder ?? '', 'elsewhere.0123456789ab.json'), `${JSON.stringify({ journal: otherJournal })}\n`);
    // (--again: jj.csv's own run finished, so the same command without it would be refused.)
    const dry = await bulk(['jj.csv', ...MSG, '--dry-run', '--again'], e, { cwd: root });
    assert.equal(dry.code, 0, dry.stderr);
    assert.doesNotMatch(dry.stderr, /unfinished/);
  });

  test('a new run with a --journal of its own is refused while another run of the file is unfinished, in its run folder or kept by another --journal', async () => {
    const root = tempDir();
    const config = join(root, 'state');
    const list = numbers(20, 600);
    writeFileSync(join(root, 'jo.csv'), csv(list));
    const e = env(server.url, config);

    acceptOneThenRefuse();
    const first = await bulk(['jo.csv', ...MSG], e, { cwd: root });
    assert.equal(first.code, 3, first.stderr);
    assert.deepEqual(accepted, list.slice(0, 5));
    acceptAll();
    const before = server.requests.length;
    const j2 = join(root, 'kept', 'j2.jsonl');
    const other = await bulk(['jo.csv', '--journal', j2, ...MSG], e, { cwd: root });
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /^error: an unfinished run of this file exists \(run \S+, started [^)]+\); its journal is \S+runs\S+journal\.jsonl$/m);
    assert.match(other.stderr, /^hint: Continue it with: msgr send-bulk jo\.csv --resume --concurrency 1 \(rows/m);
    assert.equal(server.requests.length, before, 'the new run sent');
    assert.ok(!existsSync(j2), 'a journal was left by the refused run');

    // A run kept by --journal, then a run with another --journal.
    writeFileSync(join(root, 'jp.csv'), csv(numbers(20, 700)));
    const j1 = join(root, 'kept', 'j1.jsonl');
    acceptOneThenRefuse();
    assert.equal((await bulk(['jp.csv', '--journal', j1, ...MSG], e, { cwd: root })).code, 3);
    acceptAll();
    const before2 = server.requests.length;
    const again = await bulk(['jp.csv', '--journal', j2, ...MSG], e, { cwd: root });
    assert.equal(again.code, 2, again.stderr);
    assert.match(again.stderr, new RegExp(`its journal is kept at ${escape(j1)}$`, 'm'));
    assert.match(again.stderr, new RegExp(`Continue it with: msgr send-bulk jp\\.csv --resume --journal ${escape(j1)} --concurrency 1 `));
    assert.equal(server.requests.length, before2, 'the new run sent');
  });

  test('an unfinished run an earlier msgr kept under the symlink\'s own path (not the real one) still refuses a new start, and is continued by the command named', async () => {
    const root = tempDir();
    const config = join(root, 'state');
    const list = numbers(20, 800);
    writeFileSync(join(root, 'lg.csv'), csv(list));
    symlinkSync('lg.csv', join(root, 'link.csv'));
    const e = env(server.url, config);

    acceptOneThenRefuse();
    assert.equal((await bulk(['lg.csv', ...MSG], e, { cwd: root })).code, 3);
    // What msgr before run folders by real path left: the folder named after the link's path,
    // its journal naming the link.
    const real = runDirFor(config, join(root, 'lg.csv'));
    const legacy = runDirFor(config, join(root, 'link.csv'));
    renameSync(real, legacy);
    const journal = join(legacy, 'journal.jsonl');
    const [head, ...rest] = readFileSync(journal, 'utf8').split('\n');
    const header = JSON.parse(head ?? '') as { input: { path: string } };
    header.input.path = join(root, 'link.csv');
    writeFileSync(journal, [JSON.stringify(header), ...rest].join('\n'));

    acceptAll();
    const before = server.requests.length;
    const fresh = await bulk(['link.csv', ...MSG], e, { cwd: root });
    assert.equal(fresh.code, 2, fresh.stderr);
    assert.match(fresh.stderr, new RegExp(`its journal is kept at ${escape(journal)}$`, 'm'));
    const resume = await bulk(['link.csv', ...MSG, '--resume'], e, { cwd: root });
    assert.equal(resume.code, 2, resume.stderr);
    const command = /^hint: Continue it with: (.+)$/m.exec(resume.stderr)?.[1] ?? '';
    assert.match(command, new RegExp(`--resume --journal ${escape(journal)} `));
    assert.equal(server.requests.length, before, 'a refused start sent');
    // `msgr runs show` names that journal in the command that continues the run.
    const shown = await runInProcess(['runs', 'show', journal], { env: e });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stderr, new RegExp(`continue it with: msgr send-bulk \\S+ --resume --journal ${escape(journal)}`));
    accepted = list.slice(0, 5);
    const resumed = await bulk(command.split(' ').slice(2), e, { cwd: root });
    assert.equal(resumed.code, 0, resumed.stderr);
    assertEachOnce(list);
  });

  test('the same data piped in again while its stdin run is unfinished is refused, naming the command that continues it; other data is a new run; --restart abandons it', async () => {
    const config = join(tempDir(), 'state');
    const e = env(server.url, config);
    const list = numbers(20, 600);
    const data = csv(list);

    acceptOneThenRefuse();
    const first = await bulk(['-', ...MSG], e, { input: data });
    assert.equal(first.code, 3, first.stderr);
    assert.deepEqual(accepted, list.slice(0, 5));
    const printed = /^\s*Resume with: (msgr send-bulk --resume --journal (\S+) --concurrency 1)$/m.exec(first.stderr);
    assert.ok(printed !== null, first.stderr);
    const [, command = '', journal = ''] = printed;

    acceptAll();
    const again = await bulk(['-', ...MSG], e, { input: data });
    assert.equal(again.code, 2, again.stderr);
    assert.match(again.stderr, new RegExp(`^error: an unfinished run of this data exists \\(run \\S+, started [^,]+, read the same data from stdin\\); its journal is ${escape(journal)}$`, 'm'));
    assert.match(again.stderr, new RegExp(`^hint: Continue it with: ${escape(command)} \\(rows already accepted are not sent again\\), or abandon it with --restart`, 'm'));
    assert.equal(server.requests.length, 2, 'nothing sent by the refused start');

    // Other data (one row more) is another campaign.
    const more = [...list, ...numbers(1, 700)];
    accepted = [];
    const other = await bulk(['-', ...MSG], e, { input: csv(more) });
    assert.equal(other.code, 0, other.stderr);
    assertEachOnce(more);

    accepted = list.slice(0, 5);
    const resumed = await bulk(command.split(' ').slice(2), e);
    assert.equal(resumed.code, 0, resumed.stderr);
    assertEachOnce(list);

    // --restart abandons the unfinished run of the same data and leaves out what it accepted.
    const second = numbers(10, 800);
    acceptOneThenRefuse();
    assert.equal((await bulk(['-', ...MSG], e, { input: csv(second) })).code, 3);
    acceptAll();
    const restarted = await bulk(['-', ...MSG, '--restart'], e, { input: csv(second) });
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.match(restarted.stderr, /abandoned run \S+; its journal is kept as \S+\.abandoned\.jsonl/);
    assertEachOnce(second);
  });

  test('the same data piped in again while a stdin run kept by --journal is unfinished is refused, naming that journal', async () => {
    const root = tempDir();
    const config = join(root, 'state');
    const list = numbers(20, 900);
    const data = csv(list);
    const journal = join(root, 'kept', 'piped.jsonl');
    const e = env(server.url, config);

    acceptOneThenRefuse();
    const first = await bulk(['-', '--journal', journal, ...MSG], e, { input: data });
    assert.equal(first.code, 3, first.stderr);
    assert.deepEqual(accepted, list.slice(0, 5));
    acceptAll();
    const before = server.requests.length;
    const again = await bulk(['-', ...MSG], e, { input: data });
    assert.equal(again.code, 2, again.stderr);
    assert.match(again.stderr, new RegExp(`read the same data from stdin\\); its journal is kept at ${escape(journal)}$`, 'm'));
    assert.match(again.stderr, new RegExp(`or abandon it with --restart --journal ${escape(journal)} \\(for the same message, it leaves out`));
    assert.equal(server.requests.length, before, 'the refused start sent');
    // --restart alone does not rename a journal the user keeps: it must be named.
    const bare = await bulk(['-', '--restart', ...MSG], e, { input: data });
    assert.equal(bare.code, 2, bare.stderr);
    assert.ok(existsSync(journal), 'the kept journal was moved by a bare --restart');
    assert.equal(server.requests.length, before, 'the refused restart sent');
    const command = /^hint: Continue it with: (.+?) \(rows/m.exec(again.stderr)?.[1] ?? '';
    const resumed = await bulk(command.split(' ').slice(2), e);
    assert.equal(resumed.code, 0, resumed.stderr);
    assertEachOnce(list);
  });
});
