// Every shell example of README.md and docs/ marked `<!-- example: run -->` runs here, as a
// reader would paste it, against the sandbox (test/support/doc-examples.ts has the markers). The
// machine it runs on: `msgr` on PATH is this build, a default profile `prod` points at a `msgr
// sandbox`, HOME and the msgr folders are temporary, and the files the examples name are there.
// Pages under MARKED_IN_FULL must mark every shell block: run, or skip with the reason.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { COMMANDS_DIR, MAN_DIR } from '../../src/reference/generate.js';
import { BIN, ROOT, cleanEnv, tempDir } from '../support/cli.js';
import { readExamples, SHELL_LANGS, transcript, type Example } from '../support/doc-examples.js';

/** Pages whose every shell block is marked. The manual's rewrite adds its pages here. */
const MARKED_IN_FULL = ['docs/help/'];

const examples = readExamples(ROOT, [COMMANDS_DIR, MAN_DIR]).filter((e) => SHELL_LANGS.has(e.lang));

/** The files the examples name, in the folder they run in. */
const FILES: Record<string, string> = {
  'notice.txt': 'Your order has shipped.\n',
  'msg.txt': 'Hello from msgr\n',
  'request.json': `${JSON.stringify({ channel: 'SMS', body: { text: 'Your order has shipped' }, recipients: [{ msisdn: '+447911123456' }] })}\n`,
  'customers.csv': 'msisdn,first_name,date\n+447911123456,Ann,Mon 3 March\n+447911123457,,Tue 4 March\n',
  'patients.csv': 'msisdn,first_name,date,time\n+447911123456,Ann,Mon 3 March,09:30\n+447911123457,,Tue 4 March,14:00\n',
  'optouts.txt': '+447911123457\n',
  'status.json': `${JSON.stringify({ exitCode: 0, stopped: null, accepted: 2 })}\n`,
};

let sandbox: ChildProcess | undefined;
let env: Record<string, string> = {};

before(async () => {
  const home = tempDir('msgr-doc-examples-');
  const shim = join(home, 'bin');
  mkdirSync(shim);
  writeFileSync(join(shim, 'msgr'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(shim, 'msgr'), 0o755);
  env = cleanEnv({ HOME: home, MSGR_CONFIG_DIR: join(home, 'msgr'), PATH: `${shim}:${process.env.PATH ?? ''}`, XDG_CONFIG_HOME: undefined, XDG_STATE_HOME: undefined });
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '-q'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  sandbox = child;
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', (code) => reject(new Error(`the sandbox ended (${code})`)));
  });
  const add = spawnSync(process.execPath, [BIN, 'profile', 'add', 'prod', '--api-key-stdin', '--account', 'ACME01', '--base-url', url], { env, input: 'doc-examples-key\n', encoding: 'utf8' });
  assert.equal(add.status, 0, add.stderr);
});

after(() => {
  sandbox?.kill('SIGINT');
});

function folder(): string {
  const dir = tempDir('msgr-doc-example-');
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
  return dir;
}

function sh(command: string, cwd: string, lang: string, fresh: boolean): { status: number | null; stdout: string; stderr: string } {
  // Nothing set up: msgr's folders empty (the sandbox and its profile are elsewhere).
  const e = fresh ? { ...env, MSGR_CONFIG_DIR: tempDir('msgr-doc-example-fresh-') } : env;
  const r = spawnSync(lang === 'bash' ? 'bash' : 'sh', ['-e', '-c', command], { cwd, env: e, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const where = (e: Example): string => `${e.file}:${e.line}`;

describe('the documentation\'s shell examples', () => {
  test('the pages marked in full mark every shell block (run, or skip with the reason)', () => {
    const unmarked = examples.filter((e) => e.mark === undefined && MARKED_IN_FULL.some((p) => e.file.startsWith(p)));
    assert.deepEqual(unmarked.map(where), [], 'mark each with <!-- example: run --> or <!-- example: skip, <why> -->');
    assert.ok(examples.some((e) => e.mark?.run === true), 'no example is marked to run');
  });

  for (const e of examples.filter((x) => x.mark?.run === true)) {
    test(`${where(e)} runs`, () => {
      const exit = e.mark?.run === true ? e.mark.exit : 0;
      const fresh = e.mark?.run === true && e.mark.fresh;
      const cwd = folder();
      if (e.lang === 'console') {
        for (const step of transcript(e.body)) {
          // Both streams, in the order a terminal shows them.
          const r = sh(`exec 2>&1; ${step.command}`, cwd, 'sh', fresh);
          assert.equal(r.status, exit, `${where(e)}: $ ${step.command}\n${r.stdout}`);
          const expected = step.output.join('\n').trimEnd();
          if (expected !== '') assert.equal(r.stdout.trimEnd(), expected, `${where(e)}: $ ${step.command}`);
        }
        return;
      }
      const r = sh(e.body, cwd, e.lang, fresh);
      assert.equal(r.status, exit, `${where(e)} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /internal error/);
    });
  }
});
