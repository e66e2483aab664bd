// Guards found in review: a bad --ca-file leaves no journal behind, --resume refuses message
// flags that differ from the run's, and a report or journal is never written over a file the run
// reads. Run in-process (test/support/in-process.ts).
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { startTestServer } from '../../../support/test-server.js';

function setup(): { csv: string; env: Record<string, string> } {
  const dir = tempDir();
  const csv = join(dir, 'in.csv');
  writeFileSync(csv, 'msisdn,name\n+447911123456,Ann\n+447911123457,Bob\n');
  return { csv, env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: 'guard-key-1234' }) };
}

test('a bad --ca-file stops before the journal: the next run starts normally', async () => {
  const { csv, env } = setup();
  const bad = await runInProcess(['send-bulk', csv, '--sandbox', '--from', 'Acme', '--text', 'Hi', '--ca-file', '/etc/hostname'], { env });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--ca-file: \/etc\/hostname holds no PEM certificate/);
  const good = await runInProcess(['send-bulk', csv, '--sandbox', '--from', 'Acme', '--text', 'Hi'], { env });
  assert.equal(good.code, 0, good.stderr);
  assert.match(good.stderr, /2 of 2 recipients accepted/);
});

test('--resume refuses a different --meta, --character-set or --message-type', async () => {
  const { csv, env } = setup();
  // A run that cannot finish: the server answers 500, so its batch is in doubt and resumable.
  const server = await startTestServer();
  server.fallback = { status: 500, body: 'down' };
  try {
    const base = ['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--account', 'ACME01', '--base-url', server.url, '--meta', 'campaign=a'];
    const first = await runInProcess(base, { env });
    assert.equal(first.code, 7, first.stderr);
    assert.match(first.stderr, /--resume/);
  } finally {
    await server.close();
  }
  for (const [flag, value] of [['--meta', 'campaign=b'], ['--character-set', 'UCS2'], ['--message-type', 'promo']] as const) {
    const r = await runInProcess(['send-bulk', csv, '--resume', flag, value], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--resume: ${flag} differs from run`));
  }
  // A flag the run was started without is named so, not as "which sends null" or "false".
  for (const flag of [['--text-column', 'name'], ['--skip-invalid'], ['--first-per-number'], ['--allow-unlisted-numbers'], ['--fix-mojibake']]) {
    const r = await runInProcess(['send-bulk', csv, '--resume', ...flag], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--resume: ${flag[0] as string} differs from run \\S+, which was started without it\n`));
  }
});

test('a missing API key or base URL fails before the preflight reads the file; --dry-run needs neither', async () => {
  const dir = tempDir();
  const csv = join(dir, 'in.csv');
  // An invalid row: a run that got as far as the preflight would stop on it instead.
  writeFileSync(csv, 'msisdn,name\n+447911123456,Ann\nnot a number,Bob\n');
  const noKey = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_BASE_URL: 'https://api.example.com', MSGR_ACCOUNT_REFERENCE: 'ACME01' });
  const a = await runInProcess(['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--journal', join(dir, 'a.jsonl')], { env: noKey });
  assert.equal(a.code, 2, a.stderr);
  assert.match(a.stderr, /no API key/);
  assert.doesNotMatch(a.stderr, /preflight|invalid row|not a phone number/);

  const noUrl = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: 'guard-key-1234', MSGR_ACCOUNT_REFERENCE: 'ACME01' });
  const b = await runInProcess(['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--journal', join(dir, 'b.jsonl')], { env: noUrl });
  assert.equal(b.code, 2, b.stderr);
  assert.match(b.stderr, /no base URL/);
  assert.doesNotMatch(b.stderr, /preflight|invalid row/);

  const dry = await runInProcess(['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--dry-run', '--skip-invalid'], { env: noKey });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stderr, /dry run: 1 recipient in 1 request would be sent/);
});

test('--report naming the --exclude list or the CSV, or --journal naming any file that is not a journal, is refused and both files are kept', async () => {
  const { csv, env } = setup();
  const dir = tempDir();
  const optouts = join(dir, 'optouts.csv');
  writeFileSync(optouts, '+447911123456\n');
  const csvBefore = readFileSync(csv, 'utf8');
  const server = await startTestServer();
  try {
    const base = ['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--account', 'ACME01', '--base-url', server.url];
    // Opening the report first emptied the opt-out list: the opted-out number was then sent to.
    const ex = await runInProcess([...base, '--exclude', optouts, '--report', optouts], { env, cwd: dir });
    assert.equal(ex.code, 2, ex.stderr);
    assert.match(ex.stderr, /--report: \S+optouts\.csv is the --exclude list; writing the report there would overwrite it/);
    assert.equal(readFileSync(optouts, 'utf8'), '+447911123456\n');

    // The same file by another name (a symlink, a relative path) is the same file; a dry run is
    // refused as well (one that finds invalid rows writes its report).
    const link = join(dir, 'link.csv');
    symlinkSync(csv, link);
    for (const [report, extra] of [[link, []], ['./in.csv', ['--dry-run']]] as const) {
      const r = await runInProcess([...base, '--report', report, ...extra], { env, cwd: dirname(csv) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /is the CSV file being sent; writing the report there would overwrite it/);
    }
    const j = await runInProcess([...base, '--journal', csv], { env });
    assert.equal(j.code, 2, j.stderr);
    assert.match(j.stderr, /--journal: \S+ is the CSV file being sent; writing the journal there would overwrite it/);
    // Any other file that is not a journal (the opt-out list, the text) is kept as well: a new
    // run's journal replaced it.
    const text = join(dir, 'text.txt');
    writeFileSync(text, 'Hi\n');
    for (const args of [['--exclude', optouts, '--journal', optouts], ['--text-file', text, '--journal', text]]) {
      const r = await runInProcess([...base.filter((a) => a !== '--text' && a !== 'Hi'), ...(args[0] === '--exclude' ? ['--text', 'Hi'] : []), ...args], { env });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--journal: \S+ is a file that is not a msgr journal; a new run would write its journal over it/);
    }
    assert.equal(readFileSync(optouts, 'utf8'), '+447911123456\n');
    assert.equal(readFileSync(text, 'utf8'), 'Hi\n');
    assert.equal(readFileSync(csv, 'utf8'), csvBefore);
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

test('runs report refuses a --report naming the run\'s CSV, its journal or its --exclude list, and keeps them', async () => {
  const { csv, env } = setup();
  const dir = tempDir();
  const journal = join(dir, 'run.jsonl');
  const optouts = join(dir, 'optouts.txt');
  writeFileSync(optouts, '+447911000000\n');
  const sent = await runInProcess(['send-bulk', csv, '--sandbox', '--from', 'Acme', '--text', 'Hi', '--journal', journal, '--exclude', optouts], { env });
  assert.equal(sent.code, 0, sent.stderr);
  const csvBefore = readFileSync(csv, 'utf8');
  const journalBefore = readFileSync(journal, 'utf8');
  for (const [report, what] of [[csv, "the run's CSV file"], [journal, "the run's journal"], [optouts, "the run's --exclude list"]] as const) {
    const r = await runInProcess(['runs', 'report', journal, '--report', report], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--report: \\S+ is ${what}; writing the report there would overwrite it`));
  }
  assert.equal(readFileSync(csv, 'utf8'), csvBefore);
  assert.equal(readFileSync(journal, 'utf8'), journalBefore);
  assert.equal(readFileSync(optouts, 'utf8'), '+447911000000\n');

  // Elsewhere it writes the report; --json says what it wrote, as one document on stdout.
  const report = join(dir, 'report.csv');
  const ok = await runInProcess(['runs', 'report', journal, '--report', report, '--json'], { env });
  assert.equal(ok.code, 0, ok.stderr);
  const doc = JSON.parse(ok.stdout) as Record<string, unknown>;
  // No listener ran: no events file read, both messages without a final receipt.
  const delivery = { delivered: 0, failed: 0, expired: 0, pending: 2, unknown: 0, withoutId: 0, events: [], missing: (doc.delivery as { missing: unknown }).missing, records: 0, skipped: 0 };
  assert.deepEqual({ ...doc, runId: typeof doc.runId }, { runId: 'string', journal, report, rows: 2, withIds: 2, complete: true, partialBecause: null, delivery });
  assert.equal(readFileSync(report, 'utf8').trim().split('\n').length, 3);
});

test('--resume with the same column flags is taken when the header spells a name with a no-break space', async () => {
  const dir = tempDir();
  const csv = join(dir, 'in.csv');
  // A spreadsheet's header: "Mobile number" and "Note text" with no-break spaces, "First Name" in another case.
  writeFileSync(csv, 'Mobile\u00a0number,Note\u00a0text,First Name,Sender\n+447911123456,Hello Ann,Ann,Acme\n+447911123457,Hello Bob,Bob,Acme\n');
  const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: 'guard-key-1234' });
  const flags = ['--msisdn-column', 'Mobile number', '--text-column', 'note text', '--from-column', 'SENDER', '--var-columns', 'first name'];
  const server = await startTestServer();
  server.fallback = { status: 500, body: 'down' };
  try {
    const first = await runInProcess(['send-bulk', csv, ...flags, '--account', 'ACME01', '--base-url', server.url], { env });
    assert.equal(first.code, 7, first.stderr);
    server.fallback = { status: 202, body: { id: 'msg-2', status: 'accepted' } };
    const resumed = await runInProcess(['send-bulk', csv, '--resume', ...flags, '--base-url', server.url, '--resend-in-doubt', '--yes'], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.doesNotMatch(resumed.stderr, /differs from run/);
    const last = server.requests.slice(-2).map((r) => JSON.parse(r.body) as { from: string; body: { text: string }; recipients: { msisdn: string; variables?: Record<string, string> }[] });
    assert.deepEqual(
      last.map((b) => [b.from, b.body.text, b.recipients.map((p) => [p.msisdn, p.variables])]).sort(),
      [
        ['Acme', 'Hello Ann', [['+447911123456', { 'First Name': 'Ann' }]]],
        ['Acme', 'Hello Bob', [['+447911123457', { 'First Name': 'Bob' }]]],
      ],
    );
  } finally {
    await server.close();
  }
});
