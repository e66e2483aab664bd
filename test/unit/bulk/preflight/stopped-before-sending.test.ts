// send-bulk runs that stop or end before anything is sent: what their --json document says, what
// they leave in the state folder, the errors of a column flag naming no column, and the help.
// Run in-process (test/support/in-process.ts): stdout, stderr and the exit code a user sees.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';

function csv(text: string, name = 'people.csv'): string {
  const path = join(tempDir('msgr-before-csv-'), name);
  writeFileSync(path, text);
  return path;
}

/** Every folder and file under the state folder's run folders (real and sandbox runs). */
function runState(config: string): string[] {
  return [join(config, 'runs'), join(config, 'sandbox', 'runs')].flatMap((dir) => (existsSync(dir) ? readdirSync(dir).map((n) => join(dir, n)) : []));
}

const INVALID = 'msisdn,name\nabc,Ann\nxyz,Bob\n';

describe('send-bulk stopped by the preflight', () => {
  test('--json names no journal, and no run folder is left (a file, and stdin)', async () => {
    const config = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: config });
    const r = await runInProcess(['send-bulk', csv(INVALID), '--sandbox', '--from', 'Acme', '--text', 'Hi', '--json', '--yes'], { env });
    assert.equal(r.code, 2, r.stderr);
    const doc = JSON.parse(r.stdout) as { journal: string | null; stopped: string; exitCode: number; invalid: number };
    assert.deepEqual([doc.journal, doc.stopped, doc.exitCode, doc.invalid], [null, 'preflight', 2, 2]);
    assert.deepEqual(runState(config), []);

    const piped = await runInProcess(['send-bulk', '-', '--sandbox', '--from', 'Acme', '--text', 'Hi', '--json', '--yes'], { env, input: INVALID });
    assert.equal(piped.code, 2, piped.stderr);
    assert.equal((JSON.parse(piped.stdout) as { journal: string | null }).journal, null);
    assert.deepEqual(runState(config), []);
  });

  test('a run folder that holds an earlier run stays, with that run in it', async () => {
    const config = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: config });
    const path = csv('msisdn\n+447911100001\n');
    const ok = await runInProcess(['send-bulk', path, '--sandbox', '--from', 'Acme', '--text', 'Hi', '--yes', '-q'], { env });
    assert.equal(ok.code, 0, ok.stderr);
    const [folder] = runState(config);
    assert.ok(folder !== undefined);
    writeFileSync(path, INVALID);
    const bad = await runInProcess(['send-bulk', path, '--sandbox', '--from', 'Acme', '--text', 'Hi', '--yes', '--json'], { env });
    assert.equal(bad.code, 2, bad.stderr);
    assert.equal((JSON.parse(bad.stdout) as { journal: string | null }).journal, null);
    // The earlier run's journal, put back where it was: a new run that never started leaves the
    // finished run the file's last one.
    assert.deepEqual(readdirSync(folder), ['journal.jsonl']);
    const listed = await runInProcess(['runs', 'list', '--json'], { env });
    assert.deepEqual((JSON.parse(listed.stdout) as { runs: Array<{ finished: boolean }> }).runs.map((r) => r.finished), [true]);
  });
});

describe('send-bulk --preview --json', () => {
  test('says nothing was sent: dryRun is true', async () => {
    const path = csv('msisdn,name\n+447911100001,Ann\n');
    const r = await runInProcess(['send-bulk', path, '--from', 'Acme', '--text', 'Hi {{name}}', '--account', 'ACME01', '--preview', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { dryRun: boolean; journal: string | null; preview: Array<{ text: string }> };
    assert.deepEqual([doc.dryRun, doc.journal, doc.preview.map((p) => p.text)], [true, null, ['Hi Ann']]);
  });
});

describe('send-bulk --text-column / --from-column naming no column', () => {
  test('the error names the nearest column, as a placeholder does', async () => {
    const path = csv('msisdn,message,sender\n+447911100001,Hello,Acme\n');
    const text = await runInProcess(['send-bulk', path, '--text-column', 'mesage', '--from', 'Acme', '--account', 'ACME01', '--dry-run']);
    assert.equal(text.code, 2, text.stderr);
    assert.match(text.stderr, /error: --text-column: .*people\.csv has no column "mesage"; did you mean "message"\?\nhint: Its header has: "msisdn", "message", "sender"\./);
    const from = await runInProcess(['send-bulk', path, '--text', 'Hi', '--from-column', 'Sendr', '--account', 'ACME01', '--dry-run']);
    assert.equal(from.code, 2, from.stderr);
    assert.match(from.stderr, /error: --from-column: .*people\.csv has no column "Sendr"; did you mean "sender"\?/);
    // Far from every column: no guess.
    const far = await runInProcess(['send-bulk', path, '--text-column', 'zzz', '--from', 'Acme', '--account', 'ACME01', '--dry-run']);
    assert.equal(far.code, 2, far.stderr);
    assert.match(far.stderr, /has no column "zzz"\nhint:/);
  });
});

describe('send-bulk --help', () => {
  test('says rows may have messages of their own, and groups the per-row and trial flags', async () => {
    const r = await runInProcess(['send-bulk', '--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /one message to every row/);
    assert.match(r.stdout.replace(/\s+/g, ' '), / send a message to every row of a CSV file \(the same text, or each row's own\), in batches, resumably /);
    // Each flag under the heading above it.
    const groupOf = new Map<string, string>();
    let heading = '';
    for (const line of r.stdout.split('\n')) {
      const h = /^([A-Z][A-Za-z ]+):$/.exec(line);
      if (h !== null) heading = h[1] ?? '';
      const flag = /^ {2}(?:-\w, )?(--[\w-]+)/.exec(line);
      if (flag !== null) groupOf.set(flag[1] ?? '', heading);
    }
    for (const f of ['--text-column', '--from-column', '--max-parts', '--no-render']) assert.equal(groupOf.get(f), 'Messages per row', f);
    for (const f of ['--preview', '--sample-to', '--sample']) assert.equal(groupOf.get(f), 'Previews and samples', f);
    for (const f of ['--report', '--journal', '--resume', '--skip-sent']) assert.equal(groupOf.get(f), 'Runs and reports', f);
  });
});
