// Everything msgr writes for a person fits the terminal (docs/contract.md: "Streams"): every help
// page and topic, and a representative week of use (a preflight with a UCS-2 parts line, the
// opt-out line, the summary, a refusal and its hint, runs show, runs list, profile list, listen
// lines), at 80 and 60 columns; only a path or a URL longer than the line may run past it. Off a
// terminal, the same lines are whole.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Command } from 'commander';
import { buildProgram, main } from '../../src/main.js';
import { allTopics } from '../../src/help-topics.js';
import { displayWidth } from '../../src/output/wrap.js';
import { MSGR, ROOT, cleanEnv, runCli, tempDir } from '../support/cli.js';
import { fakeContext } from '../support/fake-context.js';
import { hasScript, runTty } from '../support/tty.js';

const COLUMNS = [80, 60] as const;
const PATH_OR_URL = /^(?:[a-z]+:\/\/\S+|\S*\/\S*\/\S+)$/;

/**
 * The lines wider than `columns`, but those that are wider only by a path or a URL (a word with
 * slashes): without it, the line fits.
 */
function tooWide(text: string, columns: number): string[] {
  return text
    // A spinner goes back to the line's start (CR, or ESC [1G) to draw it again: what stays is the last.
    .replace(/\u001b\[\d*G/g, '\r')
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .split(/\r?\n/)
    .map((line) => line.split('\r').pop() ?? '')
    .filter((line) => displayWidth(line) > columns && displayWidth(line.split(' ').filter((w) => !PATH_OR_URL.test(w.replace(/^[("'`]+|[)"'`.,;:]+$/g, ''))).join(' ')) > columns)
    .map((line) => `${displayWidth(line)} columns: ${line}`);
}

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

// The tests that spawn msgr (under script(1), a listener) run side by side, and beside those that
// run it in this process; those run one at a time: two main() runs at once in one process
// mix their output settings (a --json run's unwrapped lines came out wrapped).
describe('every line fits the terminal', { concurrency: true }, () => {
  describe('run in this process', { concurrency: false }, () => {
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

  test('msgr --help on a narrow terminal is fitted to it, not printed as laid out for 80 columns', { skip: hasScript ? false : 'util-linux script is not installed' }, async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const narrow = await runTty(['--help'], env, [], { columns: 60 });
    assert.match(narrow.output, /Exit codes:/);
    assert.deepEqual(tooWide(narrow.output, 60), []);
    // 80 columns and wider: the page rendered at build time, as it is.
    const wide = await runTty(['--help'], env, [], { columns: 100 });
    assert.deepEqual(tooWide(wide.output, 80), []);
  });

  test('a week of use at 80 and 60 columns: preflight, opt-outs, summary, a refusal, runs show and list, profile list', { skip: hasScript ? false : 'util-linux script is not installed' }, async () => {
    for (const columns of COLUMNS) {
      const dir = tempDir('msgr-fits-run-');
      const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state') });
      const file = join(dir, 'patients-export-monday.csv');
      const names = ['Zoë', 'Ana', 'José', 'Ann', 'Renée', 'Bob', 'Chloë', 'Dan', 'Ramón', 'Eve'];
      writeFileSync(file, `Mobile,first_name,city\n${names.map((n, i) => `+4479111234${String(i).padStart(2, '0')},${n},Leeds`).join('\n')}\n`);
      writeFileSync(join(dir, 'live.key'), 'live-key-0123456789abcdef\n');
      const text = 'Hi {{first_name}}, your appointment in {{city}} is tomorrow at 10:00. Reply STOP to opt out of these reminders from the clinic.';
      const tty = async (args: string[]): Promise<string> => {
        const r = await runTty(args, env, [], { columns });
        assert.deepEqual(tooWide(r.output, columns), [], `msgr ${args.join(' ')} at ${columns} columns:\n${r.output}`);
        return r.output;
      };
      assert.match(await tty(['optout', 'add', '+447911123403', '--account', 'CLINIC01', '--note', 'asked by phone, at the front desk, on Monday morning']), /opted out/);
      const sent = await tty(['send-bulk', file, '--sandbox', '--account', 'CLINIC01', '--from', 'Clinic', '--text', text, '--yes', '--once', 'clinic-reminders-2026-12-07', '--report', join(dir, 'report.csv')]);
      assert.match(sent, /parts: 9 messages, \d+ SMS parts;[\s\S]*UCS-2/);
      assert.match(sent, /opted out: 1 row left out/);
      assert.match(sent, /9 of 9 recipients accepted/);
      // The same file again, by mistake: refused, with the commands that would be accepted.
      const again = await tty(['send-bulk', file, '--sandbox', '--account', 'CLINIC01', '--from', 'Clinic', '--text', text, '--yes']);
      assert.match(again, /--skip-sent/);
      assert.match(await tty(['runs', 'show', file]), /delivery/);
      // Whole on a record of its own (60 columns); at 80, cut in the middle if the table cannot hold it.
      assert.match(await tty(['runs', 'list']), columns < 80 ? /key +clinic-reminders-2026-12-07/ : /clinic\S*…\S*12-07|clinic-reminders-2026-12-07/);
      assert.match(await tty(['profile', 'add', 'live', '--api-key-file', join(dir, 'live.key'), '--account', 'ACME-EUROPE-PRODUCTION', '--base-url', 'https://eu.api.example.com', '--from', 'AcmeClinics', '--channel', 'sms', '--default-country', 'GB', '--confirm']), /live/);
      assert.match(await tty(['profile', 'list']), /ACME-EUROPE-PRODUCTION/);
      assert.match(await tty(['optout', 'list', '--account', 'CLINIC01']), /\+447911123403/);
    }
  });

  test('off a terminal nothing is wrapped: the parts line is one line, as scripts grep it', async () => {
    const dir = tempDir('msgr-fits-pipe-');
    const file = join(dir, 'list.csv');
    writeFileSync(file, 'Mobile,first_name\n+447911123400,Zoë\n+447911123401,Ann\n');
    const r = await runCli(['send-bulk', file, '--sandbox', '--from', 'Clinic', '--text', 'Hi {{first_name}}, your appointment is tomorrow at 10:00. Reply STOP to opt out of these reminders.', '--yes'], { env: cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state') }) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^ {2}parts: 2 messages, \d+ SMS parts; largest \d parts? \(line \d\); 1 UCS-2, forced most often by ë \(U\+00EB\) in 1$/m);
    assert.match(r.stderr, /^sandbox: sending to the built-in emulator at http:\S+; nothing will be delivered$/m);
    assert.match(r.stderr, /^ok: 2 of 2 recipients accepted in [\d.]+ s \(\d+\/s\); accepted is not yet delivered$/m);
  });

  test('listen lines at 60 columns', { skip: hasScript ? false : 'util-linux script is not installed' }, async () => {
    const dir = tempDir('msgr-fits-listen-');
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_LISTEN_TOKEN: 'fits-the-terminal-token-0123' });
    const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
    const child = spawn('script', ['-qec', `stty cols 60; exec ${[...MSGR, 'listen', '--port', '0'].map(quote).join(' ')}`, '/dev/null'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not listening: ${output}`)), 15_000);
        const poll = setInterval(() => {
          const m = /receiving on\s+(http:\/\/\S+)/.exec(output.replace(/\r/g, ''));
          if (m?.[1] !== undefined) {
            clearInterval(poll);
            clearTimeout(timer);
            resolve(m[1]);
          }
        }, 25);
      });
      const reply = await runCli(['trigger', 'inbound', '--url', url, '--number', '+447400900123', '--text', 'Please stop sending me these reminders, I moved to another clinic last year'], { env });
      assert.equal(reply.code, 0, reply.stderr);
      const failed = await runCli(['trigger', 'failed', '--url', url, '--number', '+447400900124', '--message-id', 'sbx_m_0e41a37faaa10a91_0', '--code', 'unknown-subscriber'], { env });
      assert.equal(failed.code, 0, failed.stderr);
      const start = Date.now();
      while (!/unknown-subscriber/.test(output) && Date.now() - start < 15_000) await new Promise((r) => setTimeout(r, 25));
      assert.match(output, /moved to another/);
      assert.match(output, /unknown-subscriber/);
    } finally {
      // The whole group: `script` and the msgr it runs.
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    assert.deepEqual(tooWide(output, 60), [], output);
  });
});
