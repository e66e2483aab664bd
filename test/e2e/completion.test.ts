// Shell completion: the bash script driven in a real bash (COMP_WORDS/COMP_CWORD, the function
// called, COMPREPLY read), the `msgr` it calls being the built CLI. The script is the one
// `msgr completion bash` printed, made once and sourced from a file (once through the install
// line's `source <(msgr completion bash)`): each completion then runs one msgr, not two (39 msgr
// runs in all, not 63; docs/performance.md: "npm test").
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { cleanEnv, MSGR, runCli, tempDir } from '../support/cli.js';

let shim: string;
let config: string;
let files: string;
/** The script `msgr completion bash` printed. */
let script: string;

before(async () => {
  shim = tempDir('msgr-shim-');
  writeFileSync(join(shim, 'msgr'), `#!/bin/sh\nexec ${MSGR.map((w) => `"${w}"`).join(' ')} "$@"\n`);
  chmodSync(join(shim, 'msgr'), 0o755);
  config = tempDir();
  for (const name of ['prod-eu', 'test']) {
    const r = await runCli(['profile', 'add', name, '--api-key-stdin', '-q'], { env: cleanEnv({ MSGR_CONFIG_DIR: config }), input: 'key-1234\n' });
    assert.equal(r.code, 0, r.stderr);
  }
  files = tempDir();
  writeFileSync(join(files, 'notice.txt'), 'hi');
  writeFileSync(join(files, 'numbers.csv'), 'msisdn\n');
  mkdirSync(join(files, 'sub'));
  const printed = await runCli(['completion', 'bash']);
  assert.equal(printed.code, 0, printed.stderr);
  script = join(tempDir(), 'msgr.bash');
  writeFileSync(script, printed.stdout);
});

/**
 * COMPREPLY after completing `words` (the first is msgr) at the last word, in a real bash that
 * sourced the script (`installLine`: as the install line sources it, from msgr itself).
 */
function bashComplete(words: string[], cwd = files, installLine = false): string[] {
  const quoted = words.map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');
  const source = installLine ? 'source <(msgr completion bash)' : `source '${script}'`;
  const body = `${source}\nCOMP_WORDS=(${quoted})\nCOMP_CWORD=${words.length - 1}\n_msgr\nprintf '%s\\n' "\${COMPREPLY[@]}"\n`;
  const env = cleanEnv({ MSGR_CONFIG_DIR: config, PATH: `${shim}:${process.env.PATH ?? ''}` });
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', body], { env, cwd, encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('bash completion', () => {
  test('commands, without the hidden one', () => {
    assert.deepEqual(bashComplete(['msgr', ''], files, true), ['send', 'send-bulk', 'runs', 'profile', 'sandbox', 'listen', 'optout', 'trigger', 'doctor', 'segments', 'api', 'completion', 'help']);
    assert.deepEqual(bashComplete(['msgr', 'se']), ['send', 'send-bulk', 'segments']);
    assert.deepEqual(bashComplete(['msgr', 'runs', '']), ['list', 'show', 'report', 'prune']);
    assert.deepEqual(bashComplete(['msgr', 'send-bulk', 'x.csv', '--skip']), ['--skip-invalid', '--skip-in-doubt', '--skip-sent']);
  });

  test('options of the command being typed, never the hidden --api-key, repeatable ones again', () => {
    assert.deepEqual(bashComplete(['msgr', 'send', '--ch']), ['--channel', '--character-set']);
    assert.deepEqual(bashComplete(['msgr', 'send', '--api']), ['--api-key-file', '--api-key-stdin']);
    assert.deepEqual(bashComplete(['msgr', 'send', '--json', '--js']), []);
    assert.deepEqual(bashComplete(['msgr', 'send', '--to', '+447400900123', '--t']), ['--to', '--text', '--text-file', '--text-encoding', '--template', '--tz', '--timeout']);
  });

  test('values of --channel, --encoding and --delimiter, after a space or an =', () => {
    assert.deepEqual(bashComplete(['msgr', 'send', '--channel', '']), ['SMS', 'RCS']);
    assert.deepEqual(bashComplete(['msgr', 'send', '--channel', 'R']), ['RCS']);
    assert.deepEqual(bashComplete(['msgr', 'send', '--channel', '=', '']), ['SMS', 'RCS']);
    assert.deepEqual(bashComplete(['msgr', 'send', '--channel', '=', 'S']), ['SMS']);
    assert.deepEqual(bashComplete(['msgr', 'send-bulk', 'numbers.csv', '--encoding', 'utf']), ['utf8', 'utf16le', 'utf16be']);
    assert.deepEqual(bashComplete(['msgr', 'send', '--to', '']), []);
  });

  test('profile names read from the store at completion time', () => {
    assert.deepEqual(bashComplete(['msgr', 'send', '-p', '']), ['prod-eu', 'test']);
    assert.deepEqual(bashComplete(['msgr', 'send', '--profile', 'pr']), ['prod-eu']);
    assert.deepEqual(bashComplete(['msgr', 'profile', 'use', '']), ['prod-eu', 'test']);
    assert.deepEqual(bashComplete(['msgr', 'profile', 'set', 'test', 'ch']), ['channel']);
    assert.deepEqual(bashComplete(['msgr', 'profile', 'set', 'test', 'channel', '']), ['SMS', 'RCS']);
  });

  test('files where msgr reads a file, and only there', () => {
    assert.deepEqual(bashComplete(['msgr', 'send', '--text-file', 'no']), ['notice.txt']);
    assert.deepEqual(bashComplete(['msgr', 'send-bulk', 'num']), ['numbers.csv']);
    assert.deepEqual(bashComplete(['msgr', 'send', '--from', 'no']), []);
  });

  test('help topics and subcommands; completion shells', () => {
    assert.deepEqual(bashComplete(['msgr', 'help', 'e']), ['exit-codes', 'environment']);
    // The topics written as docs pages (docs/help/) too.
    assert.deepEqual(bashComplete(['msgr', 'help', 'pl']), ['placeholders']);
    assert.deepEqual(bashComplete(['msgr', 'help', 'profile', 'u']), ['unset', 'use']);
    assert.deepEqual(bashComplete(['msgr', 'completion', '']), ['bash', 'zsh', 'fish', 'powershell']);
  });
});

describe('msgr completion', () => {
  test('prints a script for each shell; --help gives each install line', async () => {
    for (const [shell, marker] of [['bash', 'complete -F _msgr msgr'], ['zsh', '#compdef msgr'], ['fish', 'complete -c msgr'], ['powershell', 'Register-ArgumentCompleter -Native -CommandName msgr']] as const) {
      const r = await runCli(['completion', shell]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes(marker), shell);
    }
    const help = await runCli(['completion', '--help']);
    for (const line of ["echo 'source <(msgr completion bash)' >> ~/.bashrc", "echo 'source <(msgr completion zsh)' >> ~/.zshrc", 'msgr completion fish > ~/.config/fish/completions/msgr.fish', 'msgr completion powershell >> $PROFILE']) {
      assert.ok(help.stdout.includes(line), line);
    }
    const bad = await runCli(['completion', 'tcsh']);
    assert.equal(bad.code, 2);
  });

  test('zsh and fish answers carry escaped descriptions', async () => {
    const zsh = await runCli(['__complete', 'zsh', '--', 'send', '--chan'], { env: cleanEnv({ MSGR_CONFIG_DIR: config }) });
    assert.equal(zsh.stdout, "--channel:SMS or RCS (default: the profile's, else SMS)\n");
    const colon = await runCli(['__complete', 'zsh', '--', 'sandbox', '--host', ':'], { env: cleanEnv({ MSGR_CONFIG_DIR: config }) });
    assert.equal(colon.stdout, '\\:\\:1\n');
    const fish = await runCli(['__complete', 'fish', '--', 'profile', 'us'], { env: cleanEnv({ MSGR_CONFIG_DIR: config }) });
    assert.equal(fish.stdout, 'use\tmake a profile the default\n');
  });
});
