// The command a stopped run prints, and the one `msgr runs show` prints, continue the run as
// printed when the run had a profile but a flag or the environment gave its account or base URL:
// a resume with -p alone would be refused as another target (docs/files.md: "Run identity" and
// "Runs").
// Run in-process (test/support/in-process.ts): what a user sees, without a process.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { type ReceivedRequest, type ScriptedResponse, type TestServer, useTestServer } from '../../../support/test-server.js';

const MSG = ['--from', 'Acme', '--text', 'Hello there', '--batch-size', '5', '--concurrency', '1', '--yes'];

function numbers(n: number, start = 0): string[] {
  return Array.from({ length: n }, (_, i) => `+4479111${String(start + i).padStart(5, '0')}`);
}

function csv(list: string[]): string {
  return `msisdn\n${list.join('\n')}\n`;
}

/** The arguments of a printed `msgr send-bulk …` command (no quoting in these). */
function argsOf(command: string): string[] {
  const parts = command.trim().split(/\s+/);
  assert.deepEqual(parts.slice(0, 2), ['msgr', 'send-bulk'], command);
  return parts.slice(1);
}

describe('resume commands of a run with a profile whose account or base URL came from elsewhere', () => {
  const profileServer = useTestServer();
  const otherServer = useTestServer();
  let accepted: Array<{ msisdn: string; account: string }> = [];

  const accept = (r: ReceivedRequest): ScriptedResponse => {
    const body = r.json as { accountReference: string; recipients?: Array<{ msisdn: string }> };
    const recipients = body.recipients ?? [];
    accepted.push(...recipients.map((x) => ({ msisdn: x.msisdn, account: body.accountReference })));
    return { status: 202, body: { messages: recipients.map((x) => ({ msisdn: x.msisdn, id: `id-${x.msisdn}` })) } };
  };
  const acceptOneThenRefuse = (server: TestServer): void => {
    accepted = [];
    let count = 0;
    server.answer = (r) => (++count <= 1 ? accept(r) : { status: 401, body: { title: 'Unauthorized' } });
  };

  async function setUp(): Promise<{ root: string; env: Record<string, string> }> {
    const root = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(root, 'state') });
    const added = await runInProcess(['profile', 'add', 'prod', '--api-key-stdin', '--account', 'PROD01', '--base-url', profileServer.url, '-q'], { env, input: 'prod-key-1234\n' });
    assert.equal(added.code, 0, added.stderr);
    return { root, env };
  }

  const resumeLine = (r: RunResult): string => /^ {6}Resume with: (msgr .*)$/m.exec(r.stderr)?.[1] ?? '';
  const showLine = (r: RunResult): string => /^continue it with: (msgr \S.*?)(?: \(with the API key.*)?$/m.exec(r.stderr)?.[1] ?? '';

  test('--account given beside -p: the stop hint and msgr runs show name it, and either command finishes the run for that account', async () => {
    const { root, env } = await setUp();
    const list = numbers(15);
    writeFileSync(join(root, 'acc.csv'), csv(list));

    acceptOneThenRefuse(profileServer);
    const first = await runInProcess(['send-bulk', 'acc.csv', '-p', 'prod', '--account', 'OTHER01', ...MSG], { env, cwd: root });
    assert.equal(first.code, 3, first.stderr);
    assert.equal(resumeLine(first), 'msgr send-bulk acc.csv --resume -p prod --account OTHER01 --concurrency 1 --yes');

    const shown = await runInProcess(['runs', 'show', 'acc.csv'], { env, cwd: root });
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(showLine(shown), `msgr send-bulk ${join(root, 'acc.csv')} --resume -p prod --account OTHER01`);
    // The profile's own key: nothing to say about where the key comes from.
    assert.doesNotMatch(shown.stderr, /with the API key as the run had it/);

    // -p alone is refused, and the hint names the account that brings it back.
    profileServer.answer = accept;
    const plain = await runInProcess(['send-bulk', 'acc.csv', '--resume', '-p', 'prod', '--yes'], { env, cwd: root });
    assert.equal(plain.code, 2, plain.stderr);
    assert.match(plain.stderr, /^hint: Resume with the settings the run started with \(e\.g\. -p prod --account OTHER01\)\./m);

    const resumed = await runInProcess([...argsOf(showLine(shown)), '--yes'], { env, cwd: root });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(accepted.map((a) => a.msisdn), list);
    assert.deepEqual([...new Set(accepted.map((a) => a.account))], ['OTHER01']);
  });

  test('--base-url and the key from the environment beside the default profile: msgr runs show names the base URL and the key, and its command finishes the run there', async () => {
    const { root, env } = await setUp();
    const list = numbers(15, 100);
    writeFileSync(join(root, 'url.csv'), csv(list));
    const withKey = { ...env, MSGR_API_KEY: 'env-key-5678' };

    acceptOneThenRefuse(otherServer);
    const first = await runInProcess(['send-bulk', 'url.csv', '--base-url', otherServer.url, ...MSG], { env: withKey, cwd: root });
    assert.equal(first.code, 3, first.stderr);
    assert.equal(resumeLine(first), `msgr send-bulk url.csv --resume --base-url ${otherServer.url} --concurrency 1 --yes`);

    const shown = await runInProcess(['runs', 'show', 'url.csv'], { env: withKey, cwd: root });
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(showLine(shown), `msgr send-bulk ${join(root, 'url.csv')} --resume -p prod --base-url ${otherServer.url}`);
    assert.match(shown.stderr, /with the API key as the run had it/);

    otherServer.answer = accept;
    const before = profileServer.requests.length;
    const resumed = await runInProcess([...argsOf(showLine(shown)), '--yes'], { env: withKey, cwd: root });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(accepted.map((a) => a.msisdn), list);
    assert.equal(profileServer.requests.length, before, 'nothing went to the profile\'s base URL');
  });
});

describe('--journal that is not a journal file', () => {
  test('a folder is refused as one (exit 2, not an internal error), with --resume and without; a CSV given to --resume --journal is not a journal, not "empty"', async () => {
    const root = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(root, 'state'), MSGR_API_KEY: 'test-key-1234', MSGR_BASE_URL: 'http://127.0.0.1:9', MSGR_ACCOUNT_REFERENCE: 'ACME01' });
    writeFileSync(join(root, 'f.csv'), csv(numbers(3)));
    const resumeFolder = await runInProcess(['send-bulk', 'f.csv', '--resume', '--journal', root, '--yes'], { env, cwd: root });
    assert.equal(resumeFolder.code, 2, resumeFolder.stderr);
    assert.equal(resumeFolder.stderr, `error: --journal: ${root} is a folder; --journal takes the journal's file path\nhint: Give the journal path printed by the run you want to resume.\n`);
    const startFolder = await runInProcess(['send-bulk', 'f.csv', '--journal', root, ...MSG], { env, cwd: root });
    assert.equal(startFolder.code, 2, startFolder.stderr);
    assert.match(startFolder.stderr, new RegExp(`^error: --journal: ${root} is a folder; --journal takes the journal's file path\\nhint: Give a file path, e\\.g\\. ${root}/journal\\.jsonl, or leave --journal out`));
    const csvJournal = await runInProcess(['send-bulk', '-', '--resume', '--journal', 'f.csv', '--yes'], { env, cwd: root, input: '' });
    assert.equal(csvJournal.code, 2, csvJournal.stderr);
    assert.match(csvJournal.stderr, /^error: --resume: \S+f\.csv is not a msgr journal \(none of its lines is a run header\)$/m);
    // Piped data resumed without its journal: where to find the path once the summary is gone.
    const noJournal = await runInProcess(['send-bulk', '-', '--resume', '--yes'], { env, cwd: root, input: csv(numbers(3)) });
    assert.equal(noJournal.code, 2, noJournal.stderr);
    assert.match(noJournal.stderr, /^error: --resume of a run that read stdin needs its --journal PATH\nhint: .*`msgr runs list` lists the runs .*`msgr runs show RUN` prints the command that continues one\.$/m);
  });
});

describe('a run of piped data kept by --journal in msgr runs', () => {
  const server = useTestServer();

  test('msgr runs list shows it and msgr runs show names its journal and the command that continues it', async () => {
    const root = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(root, 'state'), MSGR_API_KEY: 'test-key-1234', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
    const journal = join(root, 'kept', 'piped.jsonl');
    let count = 0;
    server.answer = () => (++count <= 1 ? { status: 202, body: { ok: true } } : { status: 401, body: { title: 'Unauthorized' } });
    const first = await runInProcess(['send-bulk', '-', '--journal', journal, ...MSG], { env, cwd: root, input: csv(numbers(20, 300)) });
    assert.equal(first.code, 3, first.stderr);

    const listed = await runInProcess(['runs', 'list', '--json'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    const runs = (JSON.parse(listed.stdout) as { runs: Array<{ runId: string; journal: string; finished: boolean }> }).runs;
    assert.deepEqual(runs.map((r) => [r.journal, r.finished]), [[journal, false]]);
    const shown = await runInProcess(['runs', 'show', runs[0]?.runId ?? '?'], { env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(shown.stdout.includes(`journal   ${journal}\n`), shown.stdout);
    assert.ok(shown.stderr.includes(`continue it with: msgr send-bulk --resume --journal ${journal} `), shown.stderr);
  });

  test('msgr runs show of a run whose file changed since it started offers no --resume (it would be refused), and says what does continue it', async () => {
    const root = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(root, 'state'), MSGR_API_KEY: 'test-key-1234', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
    const file = join(root, 'list.csv');
    writeFileSync(file, csv(numbers(20, 400)));
    let count = 0;
    server.answer = () => (++count <= 1 ? { status: 202, body: { ok: true } } : { status: 401, body: { title: 'Unauthorized' } });
    const first = await runInProcess(['send-bulk', file, ...MSG], { env, cwd: root });
    assert.equal(first.code, 3, first.stderr);
    const runId = /run (\S+);/.exec(first.stderr)?.[1] ?? '?';
    const before = await runInProcess(['runs', 'show', runId], { env });
    assert.match(before.stderr, /continue it with: msgr send-bulk \S*list\.csv --resume/);
    writeFileSync(file, csv(numbers(21, 400)));
    const after = await runInProcess(['runs', 'show', runId], { env });
    assert.equal(after.code, 0, after.stderr);
    assert.doesNotMatch(after.stderr, /--resume/);
    assert.match(after.stderr, /its file \S*list\.csv changed since the run started, so it cannot be resumed: put the file back as it was to resume it, or start over with send-bulk --restart/);
    const resumed = await runInProcess(['send-bulk', file, '--resume', '--yes'], { env, cwd: root });
    assert.equal(resumed.code, 2, resumed.stderr);
    assert.match(resumed.stderr, /changed since run/);
  });
});
