// Help that answers questions: topics, `msgr help <command> [<sub>]`, grouped options, --json on a
// command line that cannot take it. In-process (test/support/in-process.ts); the e2e file keeps
// `msgr` alone (the launcher's shortcut beside the program) and help piped into a closed pipe.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT, cleanEnv, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : n.endsWith('.ts') || n.endsWith('.js') ? [p] : [];
  });
}

describe('msgr help', () => {
  test('exit-codes: every code with whether running again is safe', async () => {
    const r = await runInProcess(['help', 'exit-codes']);
    assert.equal(r.code, 0, r.stderr);
    for (const [code, again] of [['0', '-'], ['2', 'after fixing'], ['5', 'yes'], ['6', 'check first'], ['7', 'with --resume'], ['130', 'with --resume']] as const) {
      assert.match(r.stdout, new RegExp(`^  ${code} +${again.replace('-', '\\-')} `, 'm'));
    }
    assert.match(r.stdout, /"error": \{"message", "hint", "exitCode"/);
  });

  test('environment: every variable the source reads is listed', async () => {
    const r = await runInProcess(['help', 'environment']);
    assert.equal(r.code, 0, r.stderr);
    const read = new Set<string>();
    for (const file of [...sources(join(ROOT, 'src')), join(ROOT, 'bin', 'msgr.js')]) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\benv\.([A-Za-z_][A-Za-z0-9_]*)/g)) read.add(m[1]!);
      for (const m of text.matchAll(/\.env\(['"]([A-Z_]+)['"]\)/g)) read.add(m[1]!);
      // Variables read by name from a list (the proxy variables).
      for (const list of text.matchAll(/_VARIABLES = \[([^\]]+)\]/g)) for (const m of list[1]!.matchAll(/'([A-Za-z_]+)'/g)) read.add(m[1]!);
    }
    assert.ok(read.has('MSGR_API_KEY') && read.has('no_proxy') && read.has('MSGR_DEFAULT_COUNTRY') && read.has('MSGR_CA_FILE'), [...read].join(' '));
    for (const name of read) assert.match(r.stdout, new RegExp(`\\b${name}\\b`), `${name} is read but not in msgr help environment`);
  });

  test('config: the files where they are on this machine, and MSGR_CONFIG_DIR moving them', async () => {
    const dir = tempDir();
    const r = await runInProcess(['help', 'config'], { env: cleanEnv({ MSGR_CONFIG_DIR: dir }) });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(`profile store   ${join(dir, 'config.json')}`), r.stdout);
    assert.ok(r.stdout.includes(`bulk run state  ${dir}/runs/`));
    assert.match(r.stdout, /All of them are under MSGR_CONFIG_DIR=/);
    const home = tempDir();
    const xdg = await runInProcess(['help', 'config'], { env: cleanEnv({ MSGR_CONFIG_DIR: undefined, XDG_CONFIG_HOME: join(home, 'cfg'), XDG_STATE_HOME: join(home, 'st') }) });
    if (process.platform === 'linux') assert.ok(xdg.stdout.includes(`profile store   ${join(home, 'cfg', 'msgr', 'config.json')}`), xdg.stdout);
  });

  test('every topic fits 80 columns, a wrapped meaning lined up under its first line', async () => {
    const config = tempDir('msgr-help-width-');
    for (const topic of ['exit-codes', 'environment', 'config', 'csv', 'placeholders', 'cron']) {
      const r = await runInProcess(['help', topic], { env: cleanEnv({ MSGR_CONFIG_DIR: config }) });
      assert.equal(r.code, 0, r.stderr);
      const wide = r.stdout.split('\n').filter((line) => line.length > 80 && !line.includes(config));
      assert.deepEqual(wide, [], `msgr help ${topic}`);
    }
    const codes = (await runInProcess(['help', 'exit-codes'])).stdout;
    const column = /^ {2}0 +- +/m.exec(codes)?.[0].length;
    assert.ok(column !== undefined);
    assert.match(codes, new RegExp(`^  1 +- +unexpected[^\n]*\n {${column}}\\S`, 'm'));
  });

  test('help <command> [<sub>] is that command\'s --help; an unknown one says what exists', async () => {
    const viaHelp = await runInProcess(['help', 'profile', 'add']);
    const viaFlag = await runInProcess(['profile', 'add', '--help']);
    assert.equal(viaHelp.code, 0);
    assert.match(viaHelp.stdout, /^Usage: msgr profile add \[options\] <name>/);
    assert.equal(viaHelp.stdout, viaFlag.stdout);
    assert.equal((await runInProcess(['help', 'send'])).stdout, (await runInProcess(['send', '--help'])).stdout);
    const bad = await runInProcess(['help', 'profile', 'nope']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /"nope" is not a subcommand of profile\nhint: Try one of: add, set, unset, list, show, use, remove\./);
    const none = await runInProcess(['help']);
    assert.match(none.stdout, /msgr help exit-codes/);
  });

  test('send and send-bulk group their options, with examples', async () => {
    for (const command of ['send', 'send-bulk']) {
      const r = await runInProcess([command, '--help']);
      assert.equal(r.code, 0);
      const headings = [...r.stdout.matchAll(/^([A-Z][A-Za-z ]+):$/gm)].map((m) => m[1]);
      for (const h of ['Recipients', 'Message', 'Connection', 'Output', 'Examples']) assert.ok(headings.includes(h), `${command}: ${h} in ${headings.join(', ')}`);
      assert.match(r.stdout, /Recipients:\n(?:.*\n)*? {2}--default-country <CC>/);
      assert.match(r.stdout, /Output:\n {2}--json/);
      // The flags that say the intent where msgr would otherwise stop: with the recipients.
      const recipients = /\nRecipients:\n([^]*?)\n\n/.exec(r.stdout)?.[1] ?? '';
      const flags = command === 'send' ? ['--allow-unlisted-numbers'] : ['--allow-unlisted-numbers', '--allow-duplicates', '--first-per-number', '--fix-mojibake', '--msisdn-column'];
      for (const flag of flags) assert.match(recipients, new RegExp(`^ {2}${flag}\\b`, 'm'), `${command}: ${flag} under Recipients`);
    }
  });
});

describe('--json on a command line that cannot take it', () => {
  test('a command without --json, and an unknown command, still give one error document on stdout', async () => {
    for (const [argv, hint] of [
      [['profile', 'use', 'x', '--json'], 'msgr profile use --help'],
      [['sandbox', '--json'], 'msgr sandbox --help'],
      [['completion', 'bash', '--json'], 'msgr completion --help'],
      [['bogus', '--json'], 'msgr --help'],
    ] as const) {
      const r = await runInProcess([...argv]);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
      const doc = JSON.parse(r.stdout) as { error: { exitCode: number; hint: string; message: string } };
      assert.equal(doc.error.exitCode, 2);
      assert.ok(doc.error.hint.includes(hint), doc.error.hint);
    }
  });
  test('"--json" as another flag\'s value is not a request for JSON', async () => {
    const r = await runInProcess(['segments', '--text-file', '--json']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stdout, '');
  });
});
