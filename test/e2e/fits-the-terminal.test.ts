// Everything msgr writes for a person fits the terminal (docs/contract.md: "Streams"), where a
// real terminal or a process is the point: `msgr --help` under script(1), a representative week
// of use (a preflight with a UCS-2 parts line, the opt-out line, the summary, a refusal and its
// hint, runs show, runs list, profile list) and listen lines, at 80 and 60 columns; only a path
// or a URL longer than the line may run past it. Off a terminal, the same lines are whole. Every
// help page and topic, profile show and --json are checked in-process:
// test/unit/output/fits-the-terminal.test.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { MSGR, ROOT, cleanEnv, runCli, tempDir } from '../support/cli.js';
import { COLUMNS, tooWide } from '../support/terminal-width.js';
import { hasScript, runTty } from '../support/tty.js';

// The tests spawn msgr (under script(1), a listener) and run side by side.
describe('every line fits the terminal', { concurrency: true }, () => {
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
