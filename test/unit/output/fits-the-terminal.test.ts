// Everything msgr writes for a person fits the terminal (docs/contract.md: "Streams"): every help
// page and topic, profile show, and the lines of a refused send-bulk, at 80 and 60 columns (and
// narrower), through main() with a terminal of the test's; under --json, on a terminal too,
// nothing is wrapped. What needs a real terminal or a process (script(1), the listener) is in
// test/e2e/fits-the-terminal.test.ts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Command } from 'commander';
import { buildProgram, main } from '../../../src/main.js';
import { allTopics } from '../../../src/help-topics.js';
import { tempDir } from '../../support/cli.js';
import { fakeContext } from '../../support/fake-context.js';
import { COLUMNS, tooWide } from '../../support/terminal-width.js';

/** Every visible command's words, the program's first (`[]`). */
function commandPaths(cmd: Command, path: string[] = []): string[][] {
  const hidden = (c: Command): boolean => (c as unknown as { _hidden?: boolean })._hidden === true;
  return [path, ...cmd.commands.filter((c) => !hidden(c)).flatMap((c) => commandPaths(c, [...path, c.name()]))];
}

async function inProcess(argv: string[], columns: number): Promise<{ code: number; out: string; err: string }> {
  const ctx = fakeContext({ tty: true, columns, env: { MSGR_CONFIG_DIR: tempDir('msgr-fits-'), NO_COLOR: '1' } });
  (ctx as { argv: readonly string[] }).argv = argv;
  const code = await main(ctx);
  return { code, out: ctx.out(), err: ctx.err() };
}

// One at a time: two main() runs at once in one process mix their output settings (a --json
// run's unwrapped lines came out wrapped).
describe('every line fits the terminal, run in this process', { concurrency: false }, () => {
  test('every help page and help topic, at 80 and 60 columns', async () => {
    const paths = commandPaths(buildProgram(fakeContext(), 'all'));
    assert.ok(paths.length > 25, `${paths.length} commands`);
    const pages = [[], ...paths.map((p) => [...p, '--help']), ['help'], ...allTopics().map(([name]) => ['help', name])];
    for (const columns of COLUMNS) {
      for (const argv of pages) {
        const r = await inProcess(argv, columns);
        assert.equal(r.code, 0, `msgr ${argv.join(' ')}: ${r.err}`);
        assert.ok(r.out.length > 100, `msgr ${argv.join(' ')} printed no help`);
        assert.deepEqual(tooWide(r.out, columns), [], `msgr ${argv.join(' ')} at ${columns} columns`);
      }
    }
    // The examples are broken where they must be, and stay commands a shell runs as printed.
    const narrow = (await inProcess(['send-bulk', '--help'], 60)).out;
    assert.match(narrow, /^ {2}msgr send-bulk today\.csv --once "reminders-\$\(date \+%F\)" \\\n {4}--from Clinic/m);
  });

  test('msgr help lists the topics with their summaries as prose, in a column of their own', async () => {
    for (const columns of [80, 60, 50, 40]) {
      const out = (await inProcess(['help'], columns)).out;
      const list = out.slice(out.indexOf('Help topics:'));
      assert.deepEqual(tooWide(list, columns), [], `msgr help at ${columns} columns`);
      // A summary is no command: never continued with ` \`.
      assert.doesNotMatch(list, /\\$/m, `msgr help at ${columns} columns:\n${list}`);
      for (const [name, summary] of allTopics()) {
        const at = list.indexOf(`  msgr help ${name}`);
        assert.ok(at >= 0, list);
        // The summary's words follow the topic's name, its wrapped lines under one another.
        const rest = list.slice(at + `  msgr help ${name}`.length).split('\n  msgr help ')[0] ?? '';
        assert.equal(rest.replace(/\s+/g, ' ').trim(), summary, `${name} at ${columns} columns:\n${list}`);
        const indents = new Set(rest.split('\n').slice(1).filter((l) => l.trim() !== '' && !l.startsWith('Help')).map((l) => /^ */.exec(l)?.[0].length));
        assert.ok(indents.size <= 1, `${name} at ${columns} columns:\n${list}`);
      }
    }
  });

  test('profile show on a narrow terminal: each setting\'s source whole, under its value', async () => {
    const dir = tempDir('msgr-fits-show-');
    writeFileSync(join(dir, 'live.key'), 'live-key-0123456789abcdef\n');
    const env = { MSGR_CONFIG_DIR: dir, NO_COLOR: '1' };
    const run = async (argv: string[], columns: number): Promise<string> => {
      const ctx = fakeContext({ tty: true, columns, env });
      (ctx as { argv: readonly string[] }).argv = argv;
      assert.equal(await main(ctx), 0, ctx.err());
      return ctx.out();
    };
    await run(['profile', 'add', 'live', '--api-key-file', join(dir, 'live.key'), '--account', 'ACME-EUROPE-PRODUCTION', '--base-url', 'https://eu.api.example.com/messaging/gateway', '--from', 'Acme'], 80);
    const wide = await run(['profile', 'show', '-p', 'live'], 80);
    assert.match(wide, /^profile {3}live +flag --profile$/m);
    assert.match(wide, /^CA file {3}\(not set\) +not set$/m);
    const narrow = await run(['profile', 'show', '-p', 'live'], 60);
    assert.deepEqual(tooWide(narrow, 60), [], narrow);
    // Each source is one line of its own under its value: never "not" beside the value and "set" under it.
    const settings: Array<[string, string, string]> = [['profile', 'live', 'flag --profile'], ['base URL', 'https://eu.api.example.com/messaging/gateway', 'profile live'], ['CA file', '(not set)', 'not set']];
    for (const [name, value, source] of settings) {
      assert.match(narrow, new RegExp(`^${name} +${value.replace(/[().]/g, '\\$&')}\\n {10}${source}$`, 'm'), narrow);
    }
  });

  test('under --json nothing is wrapped on a terminal either: the lines on stderr are whole', async () => {
    const dir = tempDir('msgr-fits-json-');
    const file = join(dir, 'list.csv');
    writeFileSync(file, 'Mobile,first_name\n+447911123400,Zoë\n+447911123401,Ann\n07911 123457 / 07400 123458,Bob\n');
    const text = 'Hi {{first_name}}, your appointment is tomorrow at 10:00. Reply STOP to opt out of these reminders.';
    const run = async (argv: string[]): Promise<{ code: number; out: string; err: string }> => {
      // A real target, not --sandbox: the preflight refuses before anything is sent, and an
      // in-process sandbox would stay open after the command (its close is an exit hook).
      const ctx = fakeContext({ tty: true, columns: 40, env: { MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_BASE_URL: 'https://api.example.test', MSGR_API_KEY: 'fits-json-key-0123456789', MSGR_ACCOUNT_REFERENCE: 'CLINIC01', NO_COLOR: '1' } });
      (ctx as { argv: readonly string[] }).argv = argv;
      return { code: await main(ctx), out: ctx.out(), err: ctx.err() };
    };
    // The preflight and the error, with its hint: one line each, as a script's 2>&1 would grep them.
    const refused = await run(['send-bulk', file, '--from', 'Clinic', '--text', text, '--json']);
    assert.equal(refused.code, 2, refused.err);
    assert.equal((JSON.parse(refused.out) as { exitCode: number }).exitCode, 2);
    assert.match(refused.err, /^ {2}parts: 2 messages, \d+ SMS parts; largest \d parts? \(line \d\); 1 UCS-2, forced most often by ë \(U\+00EB\) in 1$/m);
    assert.match(refused.err, /^ {4}line 4: "07911 123457 \/ 07400 123458" holds two numbers \(07911 123457, 07400 123458\), not one$/m);
    assert.match(refused.err, /^hint: Give one number to a cell: each number on a row of its own \(or the one to message\), or a --to for each number in msgr send\.$/m);
    // The same on a terminal without --json: fitted to its 40 columns.
    const person = await run(['send-bulk', file, '--from', 'Clinic', '--text', text]);
    assert.equal(person.code, 2, person.err);
    assert.deepEqual(tooWide(person.err, 40), [], person.err);
  });
});
