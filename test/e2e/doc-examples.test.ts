// Every shell example of README.md and docs/ marked `<!-- example: run -->` runs here, as a
// reader would paste it, against the sandbox (test/support/doc-examples.ts has the markers). The
// machine it runs on: `msgr` on PATH is this build, a default profile `prod` (account ACME01,
// sender Acme) points at a `msgr sandbox`, HOME is temporary, and the files the examples name
// are there. A page's blocks run in order, as a reader following it would run them: in one
// folder of the page's own, with one msgr folder of the page's own (the profile copied in), so
// what one block sends, the next one's re-run is refused for, and no page sees another's runs.
// Every page but the generated ones must mark every shell block: run, or skip with the reason.
// `msgr listen` in the examples gets a port the system had free (MSGR_LISTEN_PORT), not its
// default 4020: a listener already running on this machine must not fail the examples.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { COMMANDS_DIR, MAN_DIR } from '../../src/reference/generate.js';
import { BIN, ROOT, cleanEnv, tempDir } from '../support/cli.js';
import { readExamples, SHELL_LANGS, transcript, type Example } from '../support/doc-examples.js';

const examples = readExamples(ROOT, [COMMANDS_DIR, MAN_DIR]).filter((e) => SHELL_LANGS.has(e.lang));

/** The files the examples name, in the folder they run in. */
const FILES: Record<string, string> = {
  'notice.txt': 'Your order has shipped.\n',
  'reminder.txt': 'A reminder: your appointment is tomorrow.\n',
  'msg.txt': 'Hello from msgr\n',
  'request.json': `${JSON.stringify({ channel: 'SMS', body: { text: 'Your order has shipped' }, recipients: [{ msisdn: '+447911123456' }] })}\n`,
  'customers.csv': 'msisdn,first_name,date\n+447911123456,Ann,Mon 3 March\n+447911123457,,Tue 4 March\n',
  'patients.csv': 'msisdn,first_name,date,time\n+447911123456,Ann,Mon 3 March,09:30\n+447911123457,,Tue 4 March,14:00\n',
  'spring.csv': 'Phone,first_name,date\n+447911123460,Ann,Mon 3 March\n+447911123461,Bob,Tue 4 March\n+447911123457,Cy,Wed 5 March\n',
  'spring-v2.csv': 'Phone,first_name,date\n+447911123460,Ann,Mon 3 March\n+447911123461,Bob,Tue 4 March\n+447911123462,Di,Thu 6 March\n',
  'members.csv': 'Mobile,Name\n+447911123470,Eve\n+447911123471,Finn\n',
  'orders.csv': 'Mobile,Order\n+447911123480,1234\n+447911123481,1235\n+447911123482,1236\n',
  'today.csv': 'Mobile,Name\n+447911123490,Gus\n+447911123491,Hal\n',
  // Excel's "CSV UTF-8": a byte-order mark, `;`, national numbers.
  'export.csv': '\ufeffMobile;First name;Date;Time;Clinic\n07911 123456;Ann;Mon 3 March;09:30;Leeds\n07911 123457;;Tue 4 March;14:00;York\n',
  'unsubscribed.csv': 'Name,Phone Number\nIvy,+447400900125\nJo,+447400900126\n',
  'optouts.txt': '+447911123457\n',
  'status.json': `${JSON.stringify({ exitCode: 0, stopped: null, accepted: 2 })}\n`,
  'live.key': 'sk_live_doc_examples_0001\n',
  'prod-eu.key': 'sk_live_doc_examples_0002\n',
  'prod-us.key': 'sk_live_doc_examples_0003\n',
};

let sandbox: ChildProcess | undefined;
let env: Record<string, string> = {};
/** The msgr folder the profile was saved in, copied into each page's. */
let baseConfig = '';

/** A port the system had free a moment ago (it gives one for port 0), for the examples' listeners. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address !== null && typeof address === 'object', 'no port from the system');
  return address.port;
}

before(async () => {
  const home = tempDir('msgr-doc-examples-');
  const shim = join(home, 'bin');
  mkdirSync(shim);
  writeFileSync(join(shim, 'msgr'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(shim, 'msgr'), 0o755);
  env = cleanEnv({ HOME: home, MSGR_CONFIG_DIR: join(home, 'msgr'), PATH: `${shim}:${process.env.PATH ?? ''}`, XDG_CONFIG_HOME: undefined, XDG_STATE_HOME: undefined, MSGR_LISTEN_PORT: String(await freePort()) });
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
  const add = spawnSync(process.execPath, [BIN, 'profile', 'add', 'prod', '--api-key-stdin', '--account', 'ACME01', '--base-url', url, '--from', 'Acme'], { env, input: 'doc-examples-key\n', encoding: 'utf8' });
  assert.equal(add.status, 0, add.stderr);
  baseConfig = env.MSGR_CONFIG_DIR ?? '';
});

after(() => {
  sandbox?.kill('SIGINT');
});

interface Page {
  readonly cwd: string;
  readonly config: string;
}
const pages = new Map<string, Page>();

/** The page's folder, with the files its examples name, and its msgr folder, with the profile. */
function page(file: string): Page {
  let p = pages.get(file);
  if (p === undefined) {
    const cwd = tempDir('msgr-doc-example-');
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(cwd, name), text);
    const config = tempDir('msgr-doc-example-config-');
    copyFileSync(join(baseConfig, 'config.json'), join(config, 'config.json'));
    chmodSync(join(config, 'config.json'), 0o600);
    p = { cwd, config };
    pages.set(file, p);
  }
  return p;
}

function sh(command: string, p: Page, lang: string, fresh: boolean): { status: number | null; stdout: string; stderr: string } {
  // Nothing set up: msgr's folders empty (the sandbox and its profile are elsewhere).
  const e = { ...env, MSGR_CONFIG_DIR: fresh ? tempDir('msgr-doc-example-fresh-') : p.config };
  const cwd = p.cwd;
  const r = spawnSync(lang === 'bash' ? 'bash' : 'sh', ['-e', '-c', command], { cwd, env: e, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const where = (e: Example): string => `${e.file}:${e.line}`;

describe('the documentation\'s shell examples', () => {
  test('every page marks every shell block (run, or skip with the reason)', () => {
    const unmarked = examples.filter((e) => e.mark === undefined);
    assert.deepEqual(unmarked.map(where), [], 'mark each with <!-- example: run --> or <!-- example: skip, <why> -->');
    assert.ok(examples.some((e) => e.mark?.run === true), 'no example is marked to run');
  });

  for (const e of examples.filter((x) => x.mark?.run === true)) {
    test(`${where(e)} runs`, () => {
      const exit = e.mark?.run === true ? e.mark.exit : 0;
      const fresh = e.mark?.run === true && e.mark.fresh;
      const p = page(e.file);
      if (e.lang === 'console') {
        for (const step of transcript(e.body)) {
          // Both streams, in the order a terminal shows them.
          const r = sh(`exec 2>&1; ${step.command}`, p, 'sh', fresh);
          assert.equal(r.status, exit, `${where(e)}: $ ${step.command}\n${r.stdout}`);
          const expected = step.output.join('\n').trimEnd();
          if (expected !== '') assert.equal(r.stdout.trimEnd(), expected, `${where(e)}: $ ${step.command}`);
        }
        return;
      }
      const r = sh(e.body, p, e.lang, fresh);
      assert.equal(r.status, exit, `${where(e)} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /internal error/);
    });
  }
});
