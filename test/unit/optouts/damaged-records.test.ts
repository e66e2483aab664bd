// Records never silently stop counting, tried as a careless operator would (docs/optouts.md:
// "Damage and repair"; docs/files.md: "A journal that cannot be read"): an opt-out store edited by
// hand, and a run journal emptied or cut inside its header, with the sandbox as the API.
// In-process (test/support/in-process.ts): msgr through main() with a Context of the test's.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../support/cli.js';
import { runInProcess } from '../../support/in-process.js';

const MSG = ['--sandbox', '--from', 'Clinic', '--text', 'See you tomorrow'];

describe('damaged records', () => {
  test('an opt-out store edited by hand: a last record without its newline counts; a number typed in stops every send, naming the line, until msgr optout repair', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state') });
    const csv = join(dir, 'list.csv');
    writeFileSync(csv, 'phone\n+447400900401\n+447400900402\n+447400900403\n');
    // No account given: the sandbox's sends read the store for every account (_all).
    const store = join(dir, 'state', 'optouts', '_all.jsonl');
    mkdirSync(join(dir, 'state', 'optouts'), { recursive: true });
    writeFileSync(store, '{"v":1,"op":"add","number":"+447400900401","at":"2030-01-01T00:00:00.000Z","reason":"opt-out","source":"manual"}');
    const one = await runInProcess(['send', ...MSG, '--to', '+447400900401'], { env });
    assert.equal(one.code, 2, one.stderr);
    assert.match(one.stderr, /\+447400900401 is in the opt-out store/);
    // `optout add` keeps the record whole: the new line goes after it.
    assert.equal((await runInProcess(['optout', 'add', '+447400900409', '-q'], { env })).code, 0);
    assert.match(readFileSync(store, 'utf8'), /^\{[^\n]*"\+447400900401"[^\n]*\}\n\{[^\n]*"\+447400900409"/);

    // Numbers typed into the store by hand, and a word: every command that applies it stops.
    writeFileSync(store, `${readFileSync(store, 'utf8')}+447400900402\n07400 900403   # asked at the desk\nnot a number\n`);
    const outcome = (args: string[]): string => (args[1] === 'list' ? 'listed' : args[1] === 'check' ? 'checked' : 'sent');
    for (const args of [['send', ...MSG, '--to', '+447400900403'], ['send-bulk', csv, ...MSG], ['send-bulk', csv, ...MSG, '--dry-run'], ['optout', 'list'], ['optout', 'check', '+447400900402']]) {
      const r = await runInProcess(args, { env });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /error: the opt-out store \S+_all\.jsonl has 3 lines that are not records \(line 3: "\+447400900402"; line 4: "07400 900403 {3}# asked at the desk"; line 5: "not a number"\): the numbers on them cannot be left out; nothing was \w+\nhint: msgr optout repair --all-accounts --default-country GB \(the country its national numbers are dialled in\) turns the numbers on such lines \(typed by hand, or in a record cut short\) into opt-outs/);
      assert.match(r.stderr, new RegExp(`; nothing was ${outcome(args)}\\n`));
    }
    const runs = join(dir, 'state', 'sandbox', 'runs');
    assert.deepEqual(existsSync(runs) ? readdirSync(runs) : [], [], 'a run was started');
    const repair = await runInProcess(['optout', 'repair', '--all-accounts', '--default-country', 'GB'], { env });
    assert.equal(repair.code, 0, repair.stderr);
    assert.match(repair.stderr, /line 3: \+447400900402 is opted out now \(typed into the store by hand\)/);
    assert.match(repair.stderr, /line 4: \+447400900403 is opted out now/);
    assert.match(repair.stderr, /warning: line 5 set aside \(.*\): "not a number"/);
    const kept = readdirSync(join(dir, 'state', 'optouts'));
    assert.ok(kept.some((f) => /^_all\.jsonl\.before-repair-\d{8}T\d{6}Z$/.test(f)), kept.join(' '));
    const aside = kept.find((f) => f.includes('.set-aside-')) ?? '';
    assert.equal(readFileSync(join(dir, 'state', 'optouts', aside), 'utf8'), 'not a number\n');
    // The typed numbers are opt-outs now: the run leaves all three out, and says there is nothing to send.
    const sent = await runInProcess(['send-bulk', csv, ...MSG], { env });
    assert.equal(sent.code, 2, sent.stderr);
    assert.match(sent.stderr, /nothing to send: every one of the 3 rows of \S+ is invalid, excluded, opted out or a duplicate/);
  });

  test('a run journal emptied, or cut inside its header: a new run of its file stops (exit 2) and never writes over it; runs list shows it; --restart keeps it aside', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state') });
    const csv = join(dir, 'list.csv');
    writeFileSync(csv, 'phone\n+447400900411\n+447400900412\n');
    const first = await runInProcess(['send-bulk', csv, ...MSG, '-q'], { env });
    assert.equal(first.code, 0, first.stderr);
    const runs = join(dir, 'state', 'sandbox', 'runs');
    const folder = join(runs, readdirSync(runs)[0] ?? '');
    const journal = join(folder, 'journal.jsonl');
    const whole = readFileSync(journal, 'utf8');
    for (const damage of ['', whole.slice(0, 40)]) {
      writeFileSync(journal, damage);
      const again = await runInProcess(['send-bulk', csv, ...MSG, '--again', '-q', '--json'], { env });
      assert.equal(again.code, 2, again.stderr);
      assert.match(again.stderr, new RegExp(`^error: the journal of the last run of \\S*list\\.csv, ${journal.replace(/[/.]/g, '\\$&')}, cannot be read \\(it is (empty|not a msgr journal .*)\\); it may be the only record of whom that run messaged, and it is not written over; nothing was sent\\nhint: Keep the file\\. .*To start anew all the same: msgr send-bulk \\S+ --sandbox --from Clinic --text 'See you tomorrow' --again -q --json --restart`));
      assert.equal(readFileSync(journal, 'utf8'), damage, 'the journal was written over');
      const list = await runInProcess(['runs', 'list', '--json'], { env });
      const doc = JSON.parse(list.stdout) as { runs: unknown[]; unreadable: Array<{ journal: string; why: string }> };
      assert.deepEqual(doc.unreadable.map((u) => u.journal), [journal]);
      assert.equal(doc.runs.length, 0);
      const table = await runInProcess(['runs', 'list'], { env });
      assert.match(table.stdout, /\?\s+\S+ \S+Z\s+list\.csv-\S+\s+\?\s+\?\s+unreadable/);
      assert.match(table.stderr, /warning: \S+journal\.jsonl cannot be read \(it is .*\): a new run of its file stops until it is restored, or set aside by a --restart/);
    }
    const restart = await runInProcess(['send-bulk', csv, ...MSG, '--again', '--restart', '-q'], { env });
    assert.equal(restart.code, 0, restart.stderr);
    assert.match(restart.stderr, /warning: the journal \S+ which cannot be read, is kept as \S+journal\.unreadable-\d{8}T\d{6}Z\.jsonl; this run does not know whom that run messaged/);
    const aside = readdirSync(folder).find((f) => f.startsWith('journal.unreadable-')) ?? '';
    assert.equal(readFileSync(join(folder, aside), 'utf8'), whole.slice(0, 40));
    assert.ok(existsSync(journal));
  });
});
