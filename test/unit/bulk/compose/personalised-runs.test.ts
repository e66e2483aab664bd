// Personalised bulk messages: every row its own rendered text, asserted on what the sandbox or the
// scriptable server (both in this process, on a free port of 127.0.0.1) received for every row.
// Run in-process (test/support/in-process.ts); the kill -9 cases are e2e (send-bulk-personalised).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../../src/sandbox/server.js';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { startTestServer } from '../../../support/test-server.js';

const KEY = 'test-key-1234';

interface Sent {
  idempotencyKey: string | null;
  request: { from: string; body: { text?: string; templateId?: string }; recipients: Array<{ msisdn: string; variables?: Record<string, string> }> };
}

function received(path: string): Sent[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Sent);
}

/** Number → the texts it received. */
function textsByNumber(path: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of received(path)) {
    for (const p of r.request.recipients) out.set(p.msisdn, [...(out.get(p.msisdn) ?? []), r.request.body.text ?? '']);
  }
  return out;
}

async function sandbox(options: Partial<SandboxOptions> = {}): Promise<{ server: RunningSandbox; record: string }> {
  const record = join(tempDir('msgr-pers-rec-'), 'record.jsonl');
  const server = await startSandbox({ port: 0, record, apiKey: KEY, ...options });
  return { server, record };
}

function env(baseUrl: string, configDir = tempDir()): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: configDir, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
}

function csv(text: string): string {
  const path = join(tempDir('msgr-pers-csv-'), 'people.csv');
  writeFileSync(path, text);
  return path;
}

function bulk(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: e, timeoutMs: 30_000 });
}

const PEOPLE = [
  'msisdn,first_name,date,city',
  '+447911100001,Ann,Monday,Leeds',
  '+447911100002,Bob,Tuesday,York',
  '+447911100003,,Monday,Hull',
  '+447911100004,Ann,Monday,Bath',
  '+447911100005,Zoë 😀,Friday,Ely',
].join('\n');

describe('send-bulk: personalised messages', () => {
  test('every row receives its own rendered text; identical texts share a request; no column goes as a variable, used or not', async () => {
    const { server, record } = await sandbox();
    try {
      const config = tempDir();
      const report = join(config, 'report.csv');
      const r = await bulk([csv(`${PEOPLE}\n`), '--from', 'Acme', '--text', 'Hi {{first_name|there}}, see you {{ date }}', '--batch-size', '2', '--report', report], env(server.url, config));
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(Object.fromEntries(textsByNumber(record)), {
        '+447911100001': ['Hi Ann, see you Monday'],
        '+447911100002': ['Hi Bob, see you Tuesday'],
        '+447911100003': ['Hi there, see you Monday'],
        '+447911100004': ['Hi Ann, see you Monday'],
        '+447911100005': ['Hi Zoë 😀, see you Friday'],
      });
      const requests = received(record);
      // Ann's two rows (lines 2 and 5) share one request; the others have one each.
      assert.equal(requests.length, 4);
      const ann = requests.find((q) => q.request.body.text === 'Hi Ann, see you Monday');
      // msgr fills in the text: the provider gets the number and the text, not the unused city.
      assert.deepEqual(ann?.request.recipients, [{ msisdn: '+447911100001' }, { msisdn: '+447911100004' }]);
      assert.doesNotMatch(r.stderr, /variables:/);
      assert.match(r.stderr, /to send: 5 recipients in 4 requests/);
      assert.match(r.stderr, /parts: 5 messages, 5 SMS parts; largest 1 part \(line 2\); 1 UCS-2, forced most often by ë \(U\+00EB\) in 1, 😀 \(U\+1F600\) in 1/);
      // The report is in input order, whatever the grouping.
      assert.deepEqual(readFileSync(report, 'utf8').trim().split('\n').slice(1).map((l) => [...l.split(',').slice(0, 3), l.split(',').at(-1)].join(',')), [
        '2,+447911100001,accepted,msisdn',
        '3,+447911100002,accepted,msisdn',
        '4,+447911100003,accepted,msisdn',
        '5,+447911100004,accepted,msisdn',
        '6,+447911100005,accepted,msisdn',
      ]);
    } finally {
      await server.close();
    }
  });

  test('one number with two different messages stops the run (exit 2, nothing sent) until the command says: --allow-duplicates gets both, --first-per-number the first; a row repeating a number and its message is a duplicate', async () => {
    const { server, record } = await sandbox();
    try {
      const config = tempDir();
      const report = join(config, 'report.csv');
      const file = csv(
        [
          'Mobile,Child,Date',
          '+447911100001,Ann,Mon',
          '+447911100001,Tom,Tue',
          '+447911100001,Ann,Mon',
          '+447911100001,Tom,Tue',
          '+447911100002,Eve,Wed',
        ].join('\n') + '\n',
      );
      const text = ['--from', 'Clinic', '--text', '{{Child}} has an appointment on {{Date}}'];
      const stopped = await bulk([file, ...text, '--json'], env(server.url, config));
      assert.equal(stopped.code, 2, stopped.stderr);
      assert.equal(received(record).length, 0, 'nothing was sent');
      assert.match(stopped.stderr, /people\.csv: 1 number is on rows with different messages \(text, sender or variables\); nothing was sent:\n {2}\+447911100001: lines 2, 3, 4, 5\n/);
      assert.match(stopped.stderr, /hint: Say in the command which way: --allow-duplicates sends each number each of its messages .*--first-per-number sends each only its first row's/);
      const doc = JSON.parse(stopped.stdout) as { exitCode: number; stopped: string; differentMessages: number; repeatedNumbers: unknown };
      assert.deepEqual([doc.exitCode, doc.stopped, doc.differentMessages, doc.repeatedNumbers], [2, 'preflight', 1, [{ number: '+447911100001', lines: [2, 3, 4, 5], rows: 4 }]]);

      const r = await bulk([file, ...text, '--allow-duplicates', '--report', report], env(server.url, config));
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(Object.fromEntries(textsByNumber(record)), {
        '+447911100001': ['Ann has an appointment on Mon', 'Tom has an appointment on Tue'],
        '+447911100002': ['Eve has an appointment on Wed'],
      });
      assert.match(r.stderr, /3 valid, 2 duplicates|2 duplicates/);
      assert.match(r.stderr, /1 number on rows with different messages: each gets each of its messages \(--allow-duplicates\)/);
      assert.deepEqual(readFileSync(report, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 3).join(',')), [
        '2,+447911100001,accepted',
        '3,+447911100001,accepted',
        '4,+447911100001,duplicate',
        '5,+447911100001,duplicate',
        '6,+447911100002,accepted',
      ]);

      // --first-per-number: the first row's message only; the report says why the others were left out.
      const first = await sandbox();
      try {
        const firstReport = join(config, 'first.csv');
        const f = await bulk([file, ...text, '--first-per-number', '--report', firstReport], env(first.server.url, tempDir()));
        assert.equal(f.code, 0, f.stderr);
        assert.deepEqual(Object.fromEntries(textsByNumber(first.record)), {
          '+447911100001': ['Ann has an appointment on Mon'],
          '+447911100002': ['Eve has an appointment on Wed'],
        });
        assert.match(f.stderr, /1 number on rows with different messages: each gets its first row's message only \(--first-per-number\)/);
        assert.deepEqual(readFileSync(firstReport, 'utf8').trim().split('\n').slice(1).filter((l) => l.includes(',duplicate,')), [
          '3,+447911100001,duplicate,,,another message to the number of line 2: left out by --first-per-number,',
          '4,+447911100001,duplicate,,,same number and message as line 2,',
          '5,+447911100001,duplicate,,,another message to the number of line 2: left out by --first-per-number,',
        ]);
      } finally {
        await first.server.close();
      }
      // Both ways at once is no answer.
      const both = await bulk([file, ...text, '--allow-duplicates', '--first-per-number'], env(server.url, config));
      assert.equal(both.code, 2, both.stderr);
      assert.match(both.stderr, /--allow-duplicates and --first-per-number cannot be used together/);
      // The same text to one number twice in a --text-column file is still sent once.
      const once = csv('msisdn,message\n+447911100003,Your code is 1\n+447911100003,Your code is 1\n');
      const again = await bulk([once, '--from', 'Clinic', '--text-column', 'message'], env(server.url, config));
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(textsByNumber(record).get('+447911100003'), ['Your code is 1']);
      // A number outside the numbering plan with two messages, both allowed: two rows sent, the number named once.
      const test = csv('msisdn,message\n+447700900123,First\n+447700900123,Second\n');
      const outside = await bulk([test, '--from', 'Clinic', '--text-column', 'message', '--dry-run', '--allow-duplicates', '--allow-unlisted-numbers'], env(server.url, config));
      assert.equal(outside.code, 0, outside.stderr);
      assert.match(outside.stderr, /\n {2}outside the known numbering plan, sent as --allow-unlisted-numbers says: 2 rows: \+447700900123 \(line 2\)\n/);
    } finally {
      await server.close();
    }
  });

  test('a misspelt placeholder stops before anything is read or sent, with a did-you-mean', async () => {
    const { server, record } = await sandbox();
    try {
      const r = await bulk([csv(`${PEOPLE}\n`), '--from', 'Acme', '--text', 'Hi {{frist_name}}'], env(server.url));
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--text: \{\{frist_name\}\} names no column of \S+; did you mean \{\{first_name\}\}\?/);
      assert.doesNotMatch(r.stderr, /preflight:/);
      assert.equal(received(record).length, 0);
    } finally {
      await server.close();
    }
  });

  test('an empty value without a default is an invalid row; --skip-invalid sends the others', async () => {
    const { server, record } = await sandbox();
    try {
      const path = csv(`${PEOPLE}\n`);
      const stop = await bulk([path, '--from', 'Acme', '--text', 'Hi {{first_name}}'], env(server.url));
      assert.equal(stop.code, 2);
      assert.match(stop.stderr, /1 row: placeholders with an empty value and no default \(column first_name\)\n\s+line 4: is empty and \{\{first_name\}\} has no default/);
      assert.equal(received(record).length, 0);
      const skip = await bulk([path, '--from', 'Acme', '--text', 'Hi {{first_name}}', '--skip-invalid'], env(server.url));
      assert.equal(skip.code, 0, skip.stderr);
      assert.deepEqual([...textsByNumber(record).keys()].sort(), ['+447911100001', '+447911100002', '+447911100004', '+447911100005']);
    } finally {
      await server.close();
    }
  });

  test("a line break inside a cell is sent as one LF, a converted file's CR LF and an old Mac's CR too, in a --text-column cell and in a rendered value", async () => {
    const { server, record } = await sandbox();
    try {
      const file = csv('msisdn,message,address\r\n+447911100001,"Line one\r\nline two",1 High St\r\n+447911100002,"Line one\nline two","Flat 2\r\nHigh St"\r\n+447911100003,"Line one\rline two","Flat 3\rHigh St"\r\n');
      const cells = await bulk([file, '--from', 'Acme', '--text-column', 'message', '--var-columns', ''], env(server.url));
      assert.equal(cells.code, 0, cells.stderr);
      assert.deepEqual(Object.fromEntries(textsByNumber(record)), { '+447911100001': ['Line one\nline two'], '+447911100002': ['Line one\nline two'], '+447911100003': ['Line one\nline two'] });
      // The two rows now have one message: one request.
      assert.equal(received(record).length, 1);
      const rendered = await bulk([file, '--from', 'Acme', '--text', 'Your address: {{address}}', '--journal', join(tempDir(), 'j.jsonl')], env(server.url));
      assert.equal(rendered.code, 0, rendered.stderr);
      assert.deepEqual(textsByNumber(record).get('+447911100002')?.slice(-1), ['Your address: Flat 2\nHigh St']);
      assert.deepEqual(textsByNumber(record).get('+447911100003')?.slice(-1), ['Your address: Flat 3\nHigh St']);
      // Variables for an API that fills them in itself: the same LF; metaData is sent as written.
      const asVariables = await bulk([file, '--from', 'Acme', '--text', 'Your address: {{address}}', '--no-render', '--var-columns', 'address', '--meta-columns', 'message', '--journal', join(tempDir(), 'j.jsonl')], env(server.url));
      assert.equal(asVariables.code, 0, asVariables.stderr);
      const last = received(record).at(-1)?.request.recipients;
      assert.deepEqual(last, [
        { msisdn: '+447911100001', variables: { address: '1 High St' }, metaData: { message: 'Line one\r\nline two' } },
        { msisdn: '+447911100002', variables: { address: 'Flat 2\nHigh St' }, metaData: { message: 'Line one\nline two' } },
        { msisdn: '+447911100003', variables: { address: 'Flat 3\nHigh St' }, metaData: { message: 'Line one\rline two' } },
      ]);
    } finally {
      await server.close();
    }
  });

  test('a --text-file ending in line breaks and a blank line: none of them is sent, counted or previewed', async () => {
    const dir = tempDir('msgr-pers-trailing-');
    const file = join(dir, 'list.csv');
    writeFileSync(file, 'msisdn,name\n+447911100001,Ann\n');
    const text = join(dir, 'notice.txt');
    writeFileSync(text, 'Hi {{name}},\nsee you at 5.\n\n  \n');
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state') });
    const preview = await runInProcess(['send-bulk', file, '--sandbox', '--from', 'Acme', '--text-file', text, '--preview'], { env });
    assert.equal(preview.code, 0, preview.stderr);
    assert.equal(preview.stdout, 'line 2 → +447911100001 from Acme (GSM-7, 1 SMS part)\n  │ Hi Ann,\n  │ see you at 5.\n');
    const parts = await runInProcess(['segments', '--text-file', text, '--json'], { env });
    assert.equal((JSON.parse(parts.stdout) as { characters: number }).characters, 'Hi {{name}},\nsee you at 5.'.length);
  });

  test('a decomposed letter (as macOS writes it) is sent composed: GSM-7, not UCS-2, in the totals and at the server', async () => {
    const { server, record } = await sandbox();
    try {
      const file = csv('msisdn,name\n+447911100001,Jose\u0301\n+447911100002,Mu\u0308ller\n');
      const r = await bulk([file, '--from', 'Acme', '--text', 'Hi {{name}}', '--var-columns', ''], env(server.url));
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /all GSM-7/);
      assert.deepEqual(Object.fromEntries(textsByNumber(record)), { '+447911100001': ['Hi Jos\u00e9'], '+447911100002': ['Hi M\u00fcller'] });
    } finally {
      await server.close();
    }
  });

  test('--no-render sends the text as written, with the columns as variables', async () => {
    const { server, record } = await sandbox();
    try {
      const r = await bulk([csv(`${PEOPLE}\n`), '--from', 'Acme', '--text', 'Hi {{first_name}}', '--no-render'], env(server.url));
      assert.equal(r.code, 0, r.stderr);
      const requests = received(record);
      assert.equal(requests.length, 1);
      assert.equal(requests[0]?.request.body.text, 'Hi {{first_name}}');
      assert.deepEqual(requests[0]?.request.recipients[0], { msisdn: '+447911100001', variables: { first_name: 'Ann', date: 'Monday', city: 'Leeds' } });
    } finally {
      await server.close();
    }
  });

  test('--text-column and --from-column: each cell as it is; an empty cell is an invalid row', async () => {
    const { server, record } = await sandbox();
    try {
      const path = csv('msisdn,message,sender\n+447911100001,"Hello Ann,\nsee you",Acme\n+447911100002,Hi {{x}} as written,Shop\n+447911100003,,Acme\n+447911100004,"Hello Ann,\nsee you",Acme\n');
      const stop = await bulk([path, '--text-column', 'message', '--from-column', 'sender'], env(server.url));
      assert.equal(stop.code, 2);
      assert.match(stop.stderr, /1 row: empty messages \(column message\)\n\s+line 5: is empty: every row needs its message/);
      const r = await bulk([path, '--text-column', 'message', '--from-column', 'sender', '--skip-invalid'], env(server.url));
      assert.equal(r.code, 0, r.stderr);
      const requests = received(record).map((q) => [q.request.from, q.request.body.text, q.request.recipients.map((p) => p.msisdn)]);
      assert.deepEqual(requests.sort(), [
        ['Acme', 'Hello Ann,\nsee you', ['+447911100001', '+447911100004']],
        ['Shop', 'Hi {{x}} as written', ['+447911100002']],
      ]);
      // Neither column rides along as a variable.
      assert.ok(received(record).every((q) => q.request.recipients.every((p) => p.variables === undefined)));
    } finally {
      await server.close();
    }
  });

  test('--from-column: a sender number written with spaces is an invalid row saying how to write it, not "8 characters, at most 11"', async () => {
    const { server, record } = await sandbox();
    try {
      const path = csv('msisdn,sender\n+447911100001,0800 123\n+447911100002,+44 7911 999999\n+447911100003,Acme\n');
      const stop = await bulk([path, '--text', 'Hi', '--from-column', 'sender'], env(server.url));
      assert.equal(stop.code, 2);
      assert.match(stop.stderr, /line 2: sender "0800 123" is a number with spaces or punctuation: write it as 0800123\n/);
      assert.match(stop.stderr, /line 3: sender "\+44 7911 999999" is a number with spaces or punctuation: write it as \+447911999999\n/);
      assert.doesNotMatch(stop.stderr, /characters: an SMS sender name has at most 11|is not an SMS sender id: use a number/);
      assert.equal(received(record).length, 0);
      const one = await runInProcess(['send', '--to', '+447911100001', '--from', '0800 123', '--text', 'Hi', '--dry-run'], { env: env(server.url) });
      assert.equal(one.code, 2);
      assert.match(one.stderr, /--from: sender "0800 123" is a number with spaces or punctuation: write it as 0800123/);
    } finally {
      await server.close();
    }
  });

  test('a resumed --text-column/--from-column run, and msgr runs show, say "a text per row (column …)" and "a sender per row (column …)", never "undefined"', async () => {
    const server = await startTestServer();
    try {
      let n = 0;
      server.answer = () => (++n === 1 ? { status: 202, body: { ok: true } } : { status: 401, body: { title: 'Unauthorized' } });
      const path = csv('msisdn,message,sender\n+447911100001,Hello Ann,Acme\n+447911100002,Hi Bob,Shop\n+447911100003,Hey,Acme\n');
      const config = tempDir();
      const first = await bulk([path, '--text-column', 'message', '--from-column', 'sender', '--batch-size', '1', '--concurrency', '1'], env(server.url, config));
      assert.equal(first.code, 3, first.stderr);
      const show = await runInProcess(['runs', 'show', path], { env: env(server.url, config) });
      assert.equal(show.code, 0, show.stderr);
      assert.match(show.stdout, /^message\s+a text per row \(column message\)$/m);
      assert.match(show.stdout, /^from\s+a sender per row \(column sender\)$/m);
      server.answer = () => ({ status: 202, body: { ok: true } });
      const resumed = await bulk([path, '--resume'], env(server.url, config));
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /resuming run \S+ with its journal's message exactly \(a text per row \(column message\), a sender per row \(column sender\), account ACME01\) to http/);
      assert.doesNotMatch(show.stdout + resumed.stderr, /undefined/);
    } finally {
      await server.close();
    }
  });

  test('--max-parts makes longer rendered messages invalid rows', async () => {
    const { server } = await sandbox();
    try {
      const path = csv(`msisdn,name\n+447911100001,Ann\n+447911100002,${'x'.repeat(200)}\n`);
      const r = await bulk([path, '--from', 'Acme', '--text', 'Hi {{name}}', '--max-parts', '1', '--dry-run'], env(server.url));
      assert.equal(r.code, 2);
      assert.match(r.stderr, /line 3: the message takes 2 SMS parts, more than --max-parts 1/);
    } finally {
      await server.close();
    }
  });

  test('--preview prints the first rendered messages and sends nothing; --dry-run --json has the totals', async () => {
    const { server, record } = await sandbox();
    try {
      const config = tempDir();
      const path = csv(`${PEOPLE}\n`);
      const r = await bulk([path, '--from', 'Acme', '--text', 'Hi {{first_name|there}}', '--preview', '2'], env(server.url, config));
      assert.equal(r.code, 0, r.stderr);
      // What each request carries beside the text: here nothing (msgr fills in the text).
      assert.equal(r.stdout, 'line 2 → +447911100001 from Acme (GSM-7, 1 SMS part)\n  │ Hi Ann\n\nline 3 → +447911100002 from Acme (GSM-7, 1 SMS part)\n  │ Hi Bob\n');
      assert.match(r.stderr, /preview: the first 2 of 5 messages; nothing was sent/);
      // A cell's control characters are shown, not obeyed: an ESC would recolour the terminal. A
      // lone CR is a line break, sent as LF, so it cannot hide the start of the line either.
      const ctl = await bulk([csv('msisdn,name,x\n+447911100001,"A\u001b[31mRED\u001b[0m\u0007",\u009b2J\u202eevil\n+447911100002,"tab\there\rCR",\n'), '--from', 'Acme', '--text', 'Hi {{name}}!', '--var-columns', 'x', '--preview'], env(server.url, config));
      assert.equal(ctl.code, 0, ctl.stderr);
      assert.equal(ctl.stdout, 'line 2 → +447911100001 from Acme (UCS-2, 1 SMS part)\n  │ Hi A<U+001B>[31mRED<U+001B>[0m<U+0007>!\n  {"variables":{"x":"<U+009B>2J<U+202E>evil"}}\n\nline 3 → +447911100002 from Acme (UCS-2, 1 SMS part)\n  │ Hi tab<U+0009>here\n  │ CR!\n  {"variables":{"x":""}}\n');
      // The file name is read as the file, not as the count, when it follows --preview.
      const after = await bulk(['--preview', path, '--from', 'Acme', '--text', 'Hi {{first_name|there}}', '--json'], env(server.url, config));
      assert.equal(after.code, 0, after.stderr);
      const doc = JSON.parse(after.stdout) as { preview: Array<{ msisdn: string; text: string; encoding: string; parts: number }> };
      assert.deepEqual(doc.preview.map((p) => [p.msisdn, p.text, p.encoding, p.parts]), [
        ['+447911100001', 'Hi Ann', 'GSM-7', 1],
        ['+447911100002', 'Hi Bob', 'GSM-7', 1],
        ['+447911100003', 'Hi there', 'GSM-7', 1],
        ['+447911100004', 'Hi Ann', 'GSM-7', 1],
        ['+447911100005', 'Hi Zoë 😀', 'UCS-2', 1],
      ]);
      const dry = await bulk([path, '--from', 'Acme', '--text', 'Hi {{first_name|there}}', '--dry-run', '--json'], env(server.url, config));
      assert.equal(dry.code, 0, dry.stderr);
      const d = JSON.parse(dry.stdout) as { requests: number; messages: { messages: number; parts: number; ucs2: number }; firstRequest: { body: { text: string } } };
      assert.deepEqual([d.requests, d.messages.messages, d.messages.parts, d.messages.ucs2, d.firstRequest.body.text], [4, 5, 5, 1, 'Hi Ann']);
      assert.equal(received(record).length, 0);
      assert.equal(existsSync(join(config, 'runs')) ? readdirSync(join(config, 'runs')).length : 0, 0, 'a preview left run state');
    } finally {
      await server.close();
    }
  });

  test('--preview, --dry-run and --sample-to with --json: one document on stdout with its exitCode, also when the preflight refuses the file', async () => {
    const { server, record } = await sandbox();
    try {
      const config = tempDir();
      const text = ['--from', 'Acme', '--text', 'Hi {{first_name|there}}, {{date}}', '--json'];
      const good = csv(`${PEOPLE}\n`);
      for (const mode of [['--preview', '2'], ['--dry-run']]) {
        const ok = await bulk([good, ...text, ...mode], env(server.url, config));
        assert.equal(ok.code, 0, ok.stderr);
        const doc = JSON.parse(ok.stdout) as { exitCode: number; dryRun: boolean };
        assert.deepEqual([doc.exitCode, doc.dryRun], [0, true], mode.join(' '));
      }
      const sample = await bulk([good, ...text, '--sample-to', '+447911199998'], env(server.url, config));
      assert.equal(sample.code, 0, sample.stderr);
      const s = JSON.parse(sample.stdout) as { exitCode: number; samples: unknown[] };
      assert.deepEqual([s.exitCode, s.samples.length], [0, 1]);
      // An invalid row (a number in scientific notation) without --skip-invalid; a file with no rows.
      const bad = csv(`${PEOPLE}\n4.47911E+11,Dan,Friday,Bath\n`);
      const empty = csv('msisdn,first_name,date,city\n');
      for (const [path, why] of [[bad, /invalid row/], [empty, /no rows|nothing to send/]] as const) {
        const r = await bulk([path, ...text, '--preview', '2'], env(server.url, config));
        assert.equal(r.code, 2, r.stderr);
        const doc = JSON.parse(r.stdout) as { exitCode: number; stopped: string; preview: Array<{ msisdn: string }> };
        assert.deepEqual([doc.exitCode, doc.stopped], [2, 'preflight']);
        assert.match(r.stderr, why);
        // The messages the text output prints before the refusal are in the document too.
        assert.deepEqual(doc.preview.map((p) => p.msisdn), path === bad ? ['+447911100001', '+447911100002'] : []);
      }
      // A sample the preflight refuses sent nothing of the campaign either: dryRun is true.
      const refused = await bulk([bad, ...text, '--sample-to', '+447911199998'], env(server.url, config));
      assert.equal(refused.code, 2, refused.stderr);
      const r = JSON.parse(refused.stdout) as { exitCode: number; stopped: string; dryRun: boolean };
      assert.deepEqual([r.exitCode, r.stopped, r.dryRun], [2, 'preflight', true]);
      assert.equal(received(record).length, 1, 'only the sample was sent');
    } finally {
      await server.close();
    }
  });

  test('--sample-to sends the first rows\' messages to the sample numbers only, outside the campaign', async () => {
    const { server, record } = await sandbox();
    try {
      const config = tempDir();
      const path = csv(`${PEOPLE}\n`);
      const text = ['--from', 'Acme', '--text', 'Hi {{first_name|there}}, {{date}}'];
      const r = await bulk([path, ...text, '--sample-to', '+447911199998', '--sample-to', '+447911199999', '--sample', '2'], env(server.url, config));
      assert.equal(r.code, 0, r.stderr);
      const samples = received(record);
      assert.deepEqual(samples.map((q) => [q.request.body.text, q.request.recipients.map((p) => p.msisdn)]), [
        ['Hi Ann, Monday', ['+447911199998', '+447911199999']],
        ['Hi Bob, Tuesday', ['+447911199998', '+447911199999']],
      ]);
      assert.ok(samples.every((q) => q.idempotencyKey?.startsWith('msgr-sample-') === true));
      assert.match(r.stderr, /send the campaign with: msgr send-bulk \S+ --from Acme --text 'Hi \{\{first_name\|there\}\}, \{\{date\}\}'\n/);
      assert.equal(existsSync(join(config, 'runs')) ? readdirSync(join(config, 'runs')).length : 0, 0, 'the sample left a journal');
      // The campaign then sends to every row, untouched by the sample.
      const real = await bulk([path, ...text], env(server.url, config));
      assert.equal(real.code, 0, real.stderr);
      assert.match(real.stderr, /5 of 5 recipients accepted in/);
      const byNumber = textsByNumber(record);
      assert.deepEqual(byNumber.get('+447911100001'), ['Hi Ann, Monday']);
      assert.deepEqual(byNumber.get('+447911199998'), ['Hi Ann, Monday', 'Hi Bob, Tuesday']);
    } finally {
      await server.close();
    }
  });

  test('with a message per row, a duplicate report line names the row with its number and message', async () => {
    const { server } = await sandbox();
    try {
      const path = csv('msisdn,name\n+447911100001,Ann\n+447911100001,Tom\n+447911100001,Ann\n+447911100002,Bob\n+447911100001,Tom\n');
      const report = join(tempDir(), 'r.csv');
      const r = await bulk([path, '--from', 'Acme', '--text', 'Hi {{name}}', '--allow-duplicates', '--report', report], env(server.url));
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(readFileSync(report, 'utf8').trim().split('\n').filter((l) => l.includes(',duplicate,')), [
        '4,+447911100001,duplicate,,,same number and message as line 2,',
        '6,+447911100001,duplicate,,,same number and message as line 3,',
      ]);
    } finally {
      await server.close();
    }
  });

  test('a sample the API rejects: the --json error document keeps the samples accepted before it', async () => {
    const server = await startTestServer();
    try {
      server.script({ status: 202, body: { id: 'm1' } }, { status: 422, body: { title: 'Unprocessable Content', detail: 'bad text' } });
      const path = csv(`${PEOPLE}\n`);
      const r = await bulk([path, '--from', 'Acme', '--text', 'Hi {{first_name|there}}', '--sample-to', '+447911199998', '--sample', '3', '--json'], env(server.url));
      assert.equal(r.code, 4, r.stderr);
      const doc = JSON.parse(r.stdout) as { error: { message: string; exitCode: number; status: number; body: unknown }; sampleRunId: string; samples: Array<{ line: number; outcome: string }>; exitCode: number };
      // As every bulk document: exitCode at the top level too.
      assert.equal(doc.exitCode, 4);
      assert.match(doc.error.message, /^the sample of line 3: the API rejected the request \(HTTP 422\)/);
      assert.deepEqual([doc.error.exitCode, doc.error.status, doc.error.body], [4, 422, { title: 'Unprocessable Content', detail: 'bad text' }]);
      assert.deepEqual(doc.samples.map((x) => [x.line, x.outcome]), [[2, 'accepted'], [3, 'rejected']]);
      assert.match(doc.sampleRunId, /^sample-/);
      assert.equal(server.requests.length, 2, 'the third sample was not sent');
    } finally {
      await server.close();
    }
  });

  test('the preflight in a worker thread sends exactly what the one pass in this thread sends', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => `+4479111${String(i % 350).padStart(5, '0')},${i % 7 === 0 ? '' : `N${i % 40}`},"d ${i % 3}"`);
    const path = csv(`msisdn,name,day\n${rows.join('\n')}\n`);
    const runs: Array<[string, string]> = [];
    for (const threshold of ['0', 'off']) {
      const { server, record } = await sandbox();
      try {
        const e = { ...env(server.url), MSGR_BULK_PARALLEL_MIN_BYTES: threshold };
        const report = join(tempDir(), 'report.csv');
        const r = await runInProcess(['send-bulk', path, '--from', 'Acme', '--text', 'Hi {{name|you}} {{day}}', '--allow-duplicates', '--batch-size', '4', '--concurrency', '1', '--report', report, '--verbose'], { env: e, timeoutMs: 30_000 });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(/preflight: one worker thread/.test(r.stderr), threshold === '0');
        runs.push([received(record).map((q) => JSON.stringify(q.request)).join('\n'), readFileSync(report, 'utf8').replace(/sbx_m_\w+/g, 'id')]);
      } finally {
        await server.close();
      }
    }
    assert.equal(runs[0]?.[0], runs[1]?.[0]);
    assert.equal(runs[0]?.[1], runs[1]?.[1]);
    assert.ok((runs[0]?.[0].split('\n').length ?? 0) < 350, 'rows with the same text shared requests');
  });
});

/** A report's lines as the run's own --report writes them: `msgr runs report`'s delivery columns taken off. */
function withoutDelivery(path: string): string[] {
  const [head, ...rows] = readFileSync(path, 'utf8').trimEnd().split('\n');
  assert.equal(head, 'line,number,outcome,status,message_id,error,request_fields,delivery,delivery_at,delivery_error');
  // No receipts were read here: the three columns hold no comma of their own.
  return ['line,number,outcome,status,message_id,error,request_fields', ...rows.map((l) => l.replace(/(,[^,]*){3}$/, ''))];
}

describe('msgr runs report of a personalised run', () => {
  test('every row, as the run\'s own --report has it, byte for byte: excluded, invalid, duplicate, accepted, stopped on a 401, then after the resume; once the file changed, the rows sent', async () => {
    const server = await startTestServer();
    try {
      let requests = 0;
      // Each recipient's id is `id-<number>`; the second request is refused (401): the run stops.
      const accept = (r: { json?: unknown }): { status: number; body: unknown } => {
        const recipients = (r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? [];
        return { status: 202, body: { messages: recipients.map((x) => ({ msisdn: x.msisdn, id: `id-${x.msisdn}` })) } };
      };
      server.answer = (r) => (++requests === 2 ? { status: 401, body: { title: 'Unauthorized' } } : accept(r));
      const dir = tempDir('msgr-pers-report-');
      const file = join(dir, 'customers.csv');
      // Line 4 is on the opt-out list, line 5 is no number, line 8 repeats line 2 (number and message).
      writeFileSync(file, 'msisdn,first_name\n+447911100001,Ann\n+447911100002,Bob\n+447911100003,Cat\nnot a number,Dan\n+447911100004,Ann\n+447911100005,Eve\n+447911100001,Ann\n');
      const optouts = join(dir, 'optouts.txt');
      writeFileSync(optouts, '+447911100003\n');
      const e = env(server.url, join(dir, 'state'));
      const own = join(dir, 'own.csv');
      // Batches of 2 by message: Ann's two rows (lines 2 and 6), then Bob's, then Eve's.
      const first = await bulk([file, '--from', 'Acme', '--text', 'Hi {{first_name}}', '--exclude', optouts, '--skip-invalid', '--batch-size', '2', '--concurrency', '1', '--report', own], e);
      assert.equal(first.code, 3, first.stderr);
      const ownLines = readFileSync(own, 'utf8').trimEnd().split('\n');
      assert.deepEqual(ownLines.map((l) => l.split(',').slice(0, 3).join(',')), [
        'line,number,outcome',
        '2,+447911100001,accepted',
        '3,+447911100002,not-sent',
        '4,+447911100003,excluded',
        '5,not a number,invalid',
        '6,+447911100004,accepted',
        '7,+447911100005,not-sent',
        '8,+447911100001,duplicate',
      ]);

      const full = join(dir, 'full.csv');
      const written = await runInProcess(['runs', 'report', file, '--report', full], { env: e });
      assert.equal(written.code, 0, written.stderr);
      assert.doesNotMatch(written.stderr, /warning/);
      assert.match(written.stderr, /wrote 7 rows .*\(2 with a message id\)/);
      assert.deepEqual(withoutDelivery(full), ownLines);

      // The resume sends Bob's and Eve's; its report keeps the first run's ids, and so does runs report.
      const resumed = await bulk([file, '--resume', '--report', own], e);
      assert.equal(resumed.code, 0, resumed.stderr);
      const after = readFileSync(own, 'utf8').trimEnd().split('\n');
      assert.deepEqual(after.map((l) => l.split(',').slice(2, 5).join(',')), ['outcome,status,message_id', 'accepted,202,id-+447911100001', 'accepted,202,id-+447911100002', 'excluded,,', 'invalid,,', 'accepted,202,id-+447911100004', 'accepted,202,id-+447911100005', 'duplicate,,']);
      const again = await runInProcess(['runs', 'report', file, '--report', full, '--json'], { env: e });
      assert.equal(again.code, 0, again.stderr);
      // The one difference: the resume's own report says which rows its earlier process accepted
      // ("before this resume"), a note about that process, not part of the run's outcome.
      assert.equal(after.filter((l) => l.endsWith(',before this resume,msisdn')).length, 2);
      assert.deepEqual(withoutDelivery(full), after.map((l) => l.replace(/,before this resume,msisdn$/, ',,msisdn')));
      const doc = JSON.parse(again.stdout) as { rows: number; withIds: number; complete: boolean };
      assert.deepEqual([doc.rows, doc.withIds, doc.complete], [7, 4, true]);

      // The file changed: only the rows the run sent, from its journal, and a warning says so.
      writeFileSync(file, 'msisdn,first_name\n+447911199999,Zed\n');
      const partial = await runInProcess(['runs', 'report', file, '--report', full], { env: e });
      assert.equal(partial.code, 0, partial.stderr);
      assert.match(partial.stderr, /changed since the run: the report lists the 4 rows the run sent/);
      assert.deepEqual(withoutDelivery(full).map((l) => l.split(',').slice(0, 3).join(',')), ['line,number,outcome', '2,+447911100001,accepted', '6,+447911100004,accepted', '3,+447911100002,accepted', '7,+447911100005,accepted']);
    } finally {
      await server.close();
    }
  });
});
