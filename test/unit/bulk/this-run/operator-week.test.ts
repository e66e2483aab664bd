// "Stop before a plausible mistake", tried as its users would: an operator's week (yesterday's
// unfinished run, today's export at the same path, an opt-out added while paused), a cron line, a
// person following the hints. Each test states what the user expects, from the README's recipes,
// docs/campaigns.md and docs/unattended.md, and fails where msgr does otherwise. Against the
// scriptable server on 127.0.0.1. Locks shared by hosts and a key's run being sent now:
// test/e2e/send-bulk-locks.test.ts.
// Run in-process (test/support/in-process.ts): what a user sees, without a process.
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, offeredCommand, ROOT, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { type ReceivedRequest, type ScriptedResponse, startTestServer, useTestServer } from '../../../support/test-server.js';

const ACCEPT: ScriptedResponse = { status: 202, body: { status: 'accepted', messages: [{ id: 'm-1' }] } };
/** A 401 stops a run at its first answer and leaves it unfinished: a deterministic interruption. */
const REFUSE: ScriptedResponse = { status: 401, body: { title: 'Unauthorized' } };

function env(baseUrl: string, config: string, extra: Record<string, string> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: 'sk_test_review', MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

function msgr(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runInProcess(args, { env: e, timeoutMs: 60_000 });
}

/** Each request's recipients with the text they got: "+44… Hi Tom, see you Tue". */
function messages(requests: readonly ReceivedRequest[]): string[] {
  return requests.flatMap((q) => {
    const body = q.json as { body?: { text?: string }; recipients?: Array<{ msisdn: string }> } | undefined;
    return (body?.recipients ?? []).map((r) => `${r.msisdn} ${body?.body?.text ?? ''}`);
  });
}

function recipients(requests: readonly ReceivedRequest[]): string[] {
  return requests.flatMap((q) => ((q.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((r) => r.msisdn));
}

function numbers(n: number, start: number): string[] {
  return Array.from({ length: n }, (_, i) => `+4479111${String(start + i).padStart(5, '0')}`);
}

function writeList(path: string, list: readonly string[]): string {
  writeFileSync(path, `msisdn\n${list.join('\n')}\n`);
  return path;
}

const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });

describe('nothing lost: --restart after the file changed', () => {
  test('--allow-duplicates (two children, two appointments): a --restart after the file changed still sends a number the message it has not had', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = join(dir, 'appointments.csv');
    const [n1, n2] = numbers(2, 100) as [string, string];
    // Ann's row is accepted, the run stops at Bob's; Tom (Ann's brother, the same number, another
    // appointment) has had nothing.
    writeFileSync(file, `name,msisdn,when\nAnn,${n1},Mon 9:00\nBob,${n2},Mon 9:30\nTom,${n1},Tue 10:00\n`);
    const line = ['send-bulk', file, '--from', 'Clinic', '--text', 'Hi {{name}}, see you {{when}}', '--allow-duplicates', '--batch-size', '1', '--concurrency', '1', '-q'];
    server.script(ACCEPT, REFUSE);
    const stopped = await msgr(line, env(server.url, config));
    assert.equal(stopped.code, 3, stopped.stderr);
    assert.deepEqual(messages(server.requests), [`${n1} Hi Ann, see you Mon 9:00`, `${n2} Hi Bob, see you Mon 9:30`]);
    // The morning's corrected export adds a row: the run cannot be resumed, the hint says --restart.
    appendFileSync(file, `Eve,${numbers(1, 102)[0]},Wed 11:00\n`);
    const refused = await msgr(line, env(server.url, config));
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /--restart/);
    const at = server.requests.length;
    const restarted = await msgr([...line, '--restart'], env(server.url, config));
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.ok(messages(server.requests.slice(at)).includes(`${n1} Hi Tom, see you Tue 10:00`), `Tom's appointment was never sent: ${JSON.stringify(messages(server.requests.slice(at)))}\n${restarted.stderr}`);
  });

  test('a daily list with --again: yesterday\'s run left unfinished, today\'s export at the same path; the command the refusal offers messages every row of today\'s list', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = join(dir, 'today.csv');
    const [a, b, c, d, e] = numbers(5, 200) as [string, string, string, string, string];
    const line = ['send-bulk', file, '--from', 'Clinic', '--text', 'Reminder: {{when}}', '--again', '--batch-size', '1', '--concurrency', '1', '--yes', '-q'];
    writeFileSync(file, `msisdn,when\n${a},Mon 9:00\n${b},Mon 9:30\n${c},Mon 10:00\n`);
    server.script(ACCEPT, ACCEPT, REFUSE);
    assert.equal((await msgr(line, env(server.url, config))).code, 3);
    // Today's list: A has another appointment today, and must get today's reminder.
    writeFileSync(file, `msisdn,when\n${a},Tue 14:00\n${d},Tue 15:00\n${e},Tue 16:00\n`);
    const refused = await msgr(line, env(server.url, config));
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /abandon it with --restart/);
    const at = server.requests.length;
    const today = await msgr([...line, '--restart'], env(server.url, config));
    assert.equal(today.code, 0, today.stderr);
    assert.deepEqual(messages(server.requests.slice(at)).sort(), [`${a} Reminder: Tue 14:00`, `${d} Reminder: Tue 15:00`, `${e} Reminder: Tue 16:00`].sort());
  });
});

describe('campaign keys', () => {
  test('--resume of a file whose keyed run finished says nothing to do (exit 0, nothing under -q), as for any finished run', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(3, 400));
    const sent = await msgr(['send-bulk', file, '--once', 'reminders-done', '--from', 'Clinic', '--text', 'See you tomorrow', '-q'], env(server.url, config));
    assert.equal(sent.code, 0, sent.stderr);
    const resumed = await msgr(['send-bulk', file, '--resume', '-q'], env(server.url, config));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stderr, '');
    assert.equal(server.requests.length, 1);
  });

  test('--once KEY used for another message: the key the hint suggests instead is accepted', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'list.csv'), numbers(3, 500));
    assert.equal((await msgr(['send-bulk', file, '--once', 'spring', '--from', 'Acme', '--text', 'Spring sale', '-q'], env(server.url, config))).code, 0);
    const refused = await msgr(['send-bulk', file, '--once', 'spring', '--from', 'Acme', '--text', 'Spring sale: last day', '-q'], env(server.url, config));
    assert.equal(refused.code, 2, refused.stderr);
    const suggested = /\(e\.g\. ([^)]+)\)/.exec(refused.stderr)?.[1]?.split(' ');
    assert.ok(suggested !== undefined, refused.stderr);
    const offered = await msgr(['send-bulk', file, ...suggested, '--from', 'Acme', '--text', 'Spring sale: last day', '-q'], env(server.url, config));
    assert.equal(offered.code, 0, `the hint's command was refused:\n${refused.stderr}\n---\n${offered.stderr}`);
  });
});

describe('every refusal offers only commands that are accepted', () => {
  test('an opt-out added to the --exclude list as a national number while the run is paused: the hint\'s --default-country is accepted by the resume', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const list = numbers(4, 600);
    const file = writeList(join(dir, 'list.csv'), list);
    const optouts = join(dir, 'optouts.txt');
    writeFileSync(optouts, '+447911199999\n');
    server.script(ACCEPT, REFUSE);
    const stopped = await msgr(['send-bulk', file, '--from', 'Acme', '--text', 'Spring sale', '--exclude', optouts, '--batch-size', '1', '--concurrency', '1', '-q'], env(server.url, config));
    assert.equal(stopped.code, 3, stopped.stderr);
    // The last number replies STOP; someone adds it as it is written in the CRM.
    appendFileSync(optouts, '07911 100603\n');
    const resume = ['send-bulk', file, '--resume', '-q'];
    const refused = await msgr(resume, env(server.url, config));
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /add --default-country GB/);
    const at = server.requests.length;
    const offered = await msgr([...resume, '--default-country', 'GB'], env(server.url, config));
    assert.equal(offered.code, 0, `the hint's --default-country was refused:\n${refused.stderr}\n---\n${offered.stderr}`);
    assert.ok(!recipients(server.requests.slice(at)).includes('+447911100603'), 'the opt-out was messaged');
  });

  test('rows rejected (exit 7): the hint\'s way to every row\'s outcome writes the report, sending nothing, with or without a campaign key', async () => {
    for (const key of [[], ['--once', 'spring-report']]) {
      const dir = tempDir();
      const config = join(dir, 'state');
      const file = writeList(join(dir, 'list.csv'), numbers(2, 700));
      const line = ['send-bulk', file, ...key, '--from', 'Acme', '--text', 'Spring sale', '--batch-size', '1', '--concurrency', '1', '-q'];
      server.requests.length = 0;
      server.script(ACCEPT, { status: 400, body: { title: 'Bad Request' } });
      const first = await msgr(line, env(server.url, config));
      assert.equal(first.code, 7, first.stderr);
      assert.doesNotMatch(first.stderr, /Add --report/);
      const report = join(dir, 'report.csv');
      const offered = offeredCommand(first.stderr, "Every row's outcome: ").map((a) => (a === 'FILE' ? report : a));
      assert.deepEqual(offered.slice(0, 2), ['runs', 'report']);
      const written = await msgr(offered, env(server.url, config));
      assert.equal(written.code, 0, `${first.stderr}\n---\n${written.stderr}`);
      const rows = readFileSync(report, 'utf8').trim().split('\n').slice(1);
      assert.deepEqual(rows.map((r) => r.split(',').slice(0, 3).join(',')), [`2,${numbers(1, 700)[0] ?? ''},accepted`, `3,${numbers(1, 701)[0] ?? ''},rejected`]);
      assert.equal(server.requests.length, 2, 'nothing sent for a report');
    }
  });

  test('batches in doubt are all that is left (a cron tick after kill -9 or a 500): the hint says to check them with msgr runs show and offers --resume --resend-in-doubt, each accepted; exit 7 until then', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(3, 750));
    const line = ['send-bulk', file, '--once', 'reminders-doubt', '--from', 'Clinic', '--text', 'See you tomorrow', '--batch-size', '1', '--concurrency', '1', '--yes', '-q'];
    server.script(ACCEPT, { status: 500, body: { title: 'Internal Server Error' } }, ACCEPT);
    const first = await msgr(line, env(server.url, config));
    assert.equal(first.code, 7, first.stderr);
    const doubtKey = server.requests[1]?.headers['idempotency-key'];
    // Nothing else is left: the plain resume (the cron line itself) sends nothing, so it is not offered.
    for (const r of [first, await msgr(line, env(server.url, config))]) {
      assert.equal(r.code, 7, r.stderr);
      assert.doesNotMatch(r.stderr, /Resume with/);
      assert.match(r.stderr, /Check first whether the 1 recipient in doubt got the message \(`msgr runs show \S+` lists them\)/);
    }
    assert.equal(server.requests.length, 3, 'the cron tick sent nothing');
    const show = /`msgr (runs show \S+)`/.exec(first.stderr)?.[1]?.split(' ') ?? [];
    const shown = await msgr(show, env(server.url, config));
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout + shown.stderr, new RegExp(`${String(doubtKey)}|${numbers(1, 751)[0]?.slice(1) ?? ''}`));
    const resend = offeredCommand(first.stderr, 'honours them): ');
    assert.ok(resend.includes('--resend-in-doubt'), resend.join(' '));
    const resent = await msgr(resend, env(server.url, config));
    assert.equal(resent.code, 0, resent.stderr);
    assert.equal(server.requests.length, 4);
    assert.deepEqual(recipients(server.requests.slice(3)), numbers(1, 751));
    assert.equal(server.requests[3]?.headers['idempotency-key'], doubtKey, 'sent again under its original Idempotency-Key');
  });

  test('a --restart whose abandoned run left a row in doubt stops before sending (exit 2): --skip-in-doubt leaves it out, --resend-in-doubt sends to it again', async () => {
    const dir = tempDir();
    const list = numbers(3, 770);
    const line = (file: string): string[] => ['send-bulk', file, '--from', 'Clinic', '--text', 'See you tomorrow', '--batch-size', '1', '--concurrency', '1', '--yes', '-q'];
    for (const [how, expected] of [['--skip-in-doubt', numbers(1, 780)], ['--resend-in-doubt', [list[1] ?? '', ...numbers(1, 780)]]] as const) {
      const config = join(dir, `state${how}`);
      const file = writeList(join(dir, `today${how}.csv`), list);
      server.script(ACCEPT, { status: 500, body: { title: 'Internal Server Error' } }, ACCEPT);
      const first = await msgr(line(file), env(server.url, config));
      assert.equal(first.code, 7, first.stderr);
      // Today's export at the same path: the run cannot be continued, and --restart is offered.
      writeList(file, [...list, ...numbers(1, 780)]);
      const refused = await msgr(line(file), env(server.url, config));
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /abandon it with --restart/);
      const before = server.requests.length;
      const journals = (): string[] => (readdirSync(config, { recursive: true }) as string[]).filter((f) => /journal.*\.jsonl$/.test(f)).map((f) => basename(f)).sort();
      const kept = journals();
      const loud = (file: string): string[] => line(file).filter((a) => a !== '-q');
      const restart = await msgr([...loud(file), '--restart'], env(server.url, config));
      assert.equal(restart.code, 2, restart.stderr);
      // Refused: nothing was abandoned, and nothing says so; the journal is where it was.
      assert.doesNotMatch(restart.stderr, /abandoned run/);
      assert.deepEqual(journals(), kept);
      assert.match(restart.stderr, /^error: run \S+, which --restart abandons, left 1 recipient in doubt \(their requests may have reached the API\); this restart would send to them again under new Idempotency-Keys; nothing was sent$/m);
      // No receipt shows they got it: only the resend is offered (--skip-in-doubt, which says they
      // did, is offered when the receipts show it: docs/reruns.md: "In doubt meets consent").
      assert.match(restart.stderr, /^hint: No receipt shows that they got it: check them first \(msgr runs show \S+ lists them\), then add --resend-in-doubt to send to them again with this restart\.$/m);
      const dry = await msgr([...line(file), '--restart', '--dry-run'], env(server.url, config));
      assert.equal(dry.code, 2, 'a dry run predicts the refusal');
      assert.equal(server.requests.length, before, 'nothing sent');
      // Either way the command says it; the answer is in the command, for cron and history.
      const done = await msgr([...loud(file), '--restart', how], env(server.url, config));
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stderr, /^abandoned run \S+; its journal is kept as \S+\.abandoned\.jsonl$/m);
      // The words say what happens to the row in doubt: left out, or sent again.
      if (how === '--skip-in-doubt') {
        assert.doesNotMatch(done.stderr, /may get this message twice/);
        assert.match(done.stderr, /1 number was in doubt in run \S+ \(sent, no answer\): among the rows left out above, not sent again \(--skip-in-doubt\)/);
        // Left out, but never called accepted: the count of rows left out says which were in doubt.
        assert.match(done.stderr, /rows? already sent by run \S+: left out \(\d+ accepted, 1 in doubt\)/);
      } else assert.match(done.stderr, /1 number was in doubt in run \S+ \(sent, no answer\): it is sent again \(--resend-in-doubt\), so it may get this message twice/);
      assert.deepEqual(recipients(server.requests.slice(before)), [...expected], how);
    }
  });

  test('a --dry-run fails as the real run would while the file\'s run is unfinished', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'list.csv'), numbers(3, 800));
    const line = ['send-bulk', file, '--from', 'Acme', '--text', 'Spring sale', '--batch-size', '1', '--concurrency', '1', '-q'];
    server.script(ACCEPT, REFUSE);
    assert.equal((await msgr(line, env(server.url, config))).code, 3);
    const real = await msgr(line, env(server.url, config));
    assert.equal(real.code, 2, real.stderr);
    const dry = await msgr([...line, '--dry-run'], env(server.url, config));
    assert.equal(dry.code, real.code, `the dry run passed a check the real run fails:\n${dry.stderr}`);
  });

  test('a --dry-run of another message under the key of an unfinished run fails as the real run would (not "the same command without --dry-run continues it")', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(3, 850));
    const line = ['send-bulk', file, '--once', 'reminders-d1', '--from', 'Acme', '--batch-size', '1', '--concurrency', '1', '-q'];
    server.script(ACCEPT, REFUSE);
    assert.equal((await msgr([...line, '--text', 'See you tomorrow'], env(server.url, config))).code, 3);
    const real = await msgr([...line, '--text', 'The clinic is closed tomorrow'], env(server.url, config));
    assert.equal(real.code, 2, real.stderr);
    const dry = await msgr([...line, '--text', 'The clinic is closed tomorrow', '--dry-run'], env(server.url, config));
    assert.equal(dry.code, real.code, `the dry run passed a check the real run fails:\n${dry.stderr}`);
  });

  test('a 404 from a wrong base URL: the command the hint offers is accepted under -q without a warning (nothing was accepted to leave out)', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'list.csv'), numbers(3, 900));
    const wrong = await startTestServer();
    try {
      wrong.answer = () => ({ status: 404, body: { title: 'Not Found' } });
      const stopped = await msgr(['send-bulk', file, '--from', 'Acme', '--text', 'Spring sale', '--base-url', wrong.url, '-q'], env(server.url, config));
      assert.equal(stopped.code, 2, stopped.stderr);
      const offered = offeredCommand(stopped.stderr, 'send the rows with: ').map((a) => (a === 'URL' ? server.url : a));
      const fixed = await msgr(offered, env(server.url, config));
      assert.equal(fixed.code, 0, fixed.stderr);
      assert.deepEqual(recipients(server.requests).sort(), numbers(3, 900));
      assert.equal(fixed.stderr, '', 'a cron mail about nothing');
    } finally {
      await wrong.close();
    }
  });
});

describe('--json of a refused run', () => {
  test('a new run refused before it wrote a journal names no run id (msgr runs would not know it); a refused resume names its run', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'list.csv'), numbers(2, 960));
    const line = ['send-bulk', file, '--from', 'Acme', '--text', 'Spring sale', '--json', '-q'];
    const first = await msgr(line, env(server.url, config));
    assert.equal(first.code, 0, first.stderr);
    const again = await msgr(line, env(server.url, config));
    assert.equal(again.code, 2, again.stderr);
    const doc = JSON.parse(again.stdout) as { runId: unknown; journal: unknown; stopped: string };
    assert.deepEqual([doc.stopped, doc.runId, doc.journal], ['sent-before', null, null]);
    writeFileSync(join(dir, 'bad.csv'), 'msisdn\n+4479\n');
    const bad = await msgr(['send-bulk', join(dir, 'bad.csv'), '--from', 'Acme', '--text', 'Spring sale', '--json', '-q'], env(server.url, config));
    assert.equal(bad.code, 2, bad.stderr);
    assert.equal((JSON.parse(bad.stdout) as { runId: unknown }).runId, null);
    assert.equal(server.requests.length, 1);
  });
});

describe('README', () => {
  test('msgr help cron tells of the script the README gives (a campaign key, an overlap that is "running now", exit 0), not the --journal/--resume script it replaced', async () => {
    const help = await runInProcess(['help', 'cron']);
    assert.equal(help.code, 0, help.stderr);
    // The README's cron recipe points to docs/unattended.md, which has the script.
    const script = readFileSync(join(ROOT, 'docs', 'unattended.md'), 'utf8');
    assert.match(script, /msgr send-bulk "\$CSV" --once "reminders-\$DAY"/);
    assert.match(help.stdout, /--once/);
    assert.doesNotMatch(help.stdout, /--journal "\$JOURNAL"|refused by the journal's lock: exit 2/);
  });

  test('msgr help csv tells how the number column is chosen and what repeated numbers do now (a mobile column over Phone, a stop where that does not settle it; repeated numbers with different messages stop the run)', async () => {
    const help = await runInProcess(['help', 'csv']);
    assert.equal(help.code, 0, help.stderr);
    assert.doesNotMatch(help.stdout, /The first header named/, 'the first matching header is no longer the number column');
    assert.doesNotMatch(help.stdout, /Duplicates \(after that\) get one message, unless --allow-duplicates/);
    assert.match(help.stdout, /--first-per-number/);
  });

  test('the recipes rely on the opt-out store, which applies without a flag: no line of the campaign workflow needs an --exclude file a new user does not have; --exclude is said to be for one-off lists', () => {
    // The workflow is docs/campaigns.md's and its pages', the README's recipes and docs/unattended.md's script.
    let checked = 0;
    for (const doc of ['README.md', ...['campaigns.md', 'campaign-input.md', 'personalised.md', 'campaign-output.md', 'reruns.md'].map((p) => join('docs', p)), join('docs', 'unattended.md')]) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      const lines = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => (m[1] ?? '').replace(/\\\n\s*/g, '').split('\n')).filter((l) => /^msgr send-bulk /.test(l));
      checked += lines.length;
      assert.deepEqual(lines.filter((l) => l.includes('--exclude')), [], doc);
    }
    assert.ok(checked >= 20, `${checked} lines checked`);
    // Where the store is explained, --exclude is kept for one-off lists.
    for (const doc of ['README.md', join('docs', 'optouts.md'), join('docs', 'unattended.md')]) assert.match(readFileSync(join(ROOT, doc), 'utf8'), /--exclude[^\n]*(one-off|this once)/, doc);
  });
});
