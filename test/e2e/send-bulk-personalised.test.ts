// Personalised bulk messages end to end: the built CLI against the sandbox on 127.0.0.1, asserting
// on what the server received for every row.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { cleanEnv, killRepeatedly, MSGR, msgrCommand, ROOT, runCli, tempDir, type RunResult } from '../support/cli.js';
import { startGate } from '../support/gate.js';
import { waitFor } from '../support/daemon.js';

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
  return runCli(['send-bulk', ...args], { env: e, timeoutMs: 30_000 });
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
  test('--sample-to sends to each phone once, refuses an opted-out number, and names --resume beside an unfinished run', async () => {
    const { server, record } = await sandbox();
    try {
      const config = tempDir();
      const path = csv(`${PEOPLE}\n`);
      const text = ['--from', 'Acme', '--text', 'Hi {{first_name|there}}', '--default-country', 'GB'];
      // One phone written two ways gets the sample once.
      const twice = await bulk([path, ...text, '--sample-to', '+447911199998', '--sample-to', '07911 199998'], env(server.url, config));
      assert.equal(twice.code, 0, twice.stderr);
      assert.deepEqual(received(record).map((q) => q.request.recipients.map((p) => p.msisdn)), [['+447911199998']]);
      assert.match(twice.stderr, /sent 1 sample message to \+447911199998;/);
      // A number on the opt-out list gets nothing, sample or not.
      const optouts = join(tempDir(), 'optouts.txt');
      writeFileSync(optouts, '+447911199997\n');
      const excluded = await bulk([path, ...text, '--exclude', optouts, '--sample-to', '+447911199998', '--sample-to', '07911199997'], env(server.url, config));
      assert.equal(excluded.code, 2, excluded.stderr);
      assert.match(excluded.stderr, /--sample-to: \+447911199997 is on the --exclude list \S*optouts\.txt; a sample to it would message a number that opted out/);
      assert.equal(received(record).length, 1, 'nothing more was sent');
      const report = await bulk([path, ...text, '--sample-to', '+447911199998', '--report', join(tempDir(), 'r.csv')], env(server.url, config));
      assert.equal(report.code, 2, report.stderr);
      assert.match(report.stderr, /--report cannot be used with --sample-to: nothing of the campaign is sent\nhint: Leave --report out here and give it to the campaign's run/);
    } finally {
      await server.close();
    }
    // Beside a run that is sending, then an unfinished one (killed while its first requests wait
    // for the server), the command printed is the one that works. A gate holds the run's four
    // requests (--concurrency's default) until it is killed, after the sample, so it is still
    // sending when the sample starts however loaded the machine; the other commands go through.
    const slow = await sandbox();
    const gate = await startGate(slow.server.url);
    try {
      const config = tempDir();
      const path = csv(`${PEOPLE}\n`);
      const text = ['--from', 'Acme', '--text', 'Hi {{first_name|there}}'];
      const journal = join(config, 'journal.jsonl');
      const e = env(gate.url, config);
      const child = spawn(...msgrCommand(['send-bulk', path, ...text, '--journal', journal, '--batch-size', '1']), { cwd: ROOT, env: e, stdio: 'ignore' });
      const running = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_code, signal) => r(signal)));
      const out = (): number => (existsSync(journal) ? readFileSync(journal, 'utf8').split('"type":"out"').length - 1 : 0);
      for (let waited = 0; (out() < 4 || gate.held() < 4) && waited < 30_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual([out(), gate.held()], [4, 4], 'four requests out and held within 30 s');
      gate.admitNew();
      const during = await bulk([path, ...text, '--journal', journal, '--sample-to', '+447911199998'], e);
      assert.equal(during.code, 0, during.stderr);
      assert.match(during.stderr, /run \S+ of this file is sending now \(msgr pid \d+ on /);
      assert.match(during.stderr, /run \S+ of this file is sending now; once it ends, what it left goes with: msgr send-bulk .* --resume\n/);
      child.kill('SIGKILL');
      assert.equal(await running, 'SIGKILL');
      gate.open();
      // "--" ends the options: --resume goes before it.
      const beside = await bulk([...text, '--journal', journal, '--sample-to', '+447911199998', '--json', '--', path], e);
      assert.equal(beside.code, 0, beside.stderr);
      assert.match(beside.stderr, /an unfinished run of this file exists \(run \S+, started [^)]+\): the campaign goes on with --resume, or starts over with --restart/);
      const doc = JSON.parse(beside.stdout) as { command: string; restartCommand: string; unfinishedRun: string; exitCode: number };
      assert.match(doc.command, / --resume -- \S+$/);
      assert.match(doc.restartCommand, / --restart -- \S+$/);
      assert.match(beside.stderr, /continue it with msgr send-bulk .* --resume -- \S+\n {2}or start over with msgr send-bulk .* --restart -- \S+\n/);
      // A dry run is refused as the same command without --dry-run is, after its preflight lines.
      const dry = await bulk([path, ...text, '--journal', journal, '--dry-run', '--json'], e);
      assert.equal(dry.code, 2, dry.stderr);
      assert.match(dry.stderr, /^preflight: [\s\S]*\nerror: an unfinished run of this file exists \(run \S+, started [^)]+\)\nhint: Continue it with --resume/m);
      const dryDoc = JSON.parse(dry.stdout) as { unfinishedRun: string; stopped: string; exitCode: number };
      assert.deepEqual([dryDoc.unfinishedRun, dryDoc.stopped, dryDoc.exitCode], [doc.unfinishedRun, 'unfinished-run', 2]);
      // With another text --resume would be refused: only --restart is offered, saying why.
      const changed = await bulk([path, '--from', 'Acme', '--text', 'Hello {{first_name|there}}', '--journal', journal, '--sample-to', '+447911199998', '--json'], e);
      assert.equal(changed.code, 0, changed.stderr);
      const c = JSON.parse(changed.stdout) as { command: string; resumeRefused: string };
      assert.match(c.command, / --restart$/);
      assert.match(c.resumeRefused, /^--text differs from run \S+, which sends "Hi \{\{first_name\|there\}\}"$/);
      // ... and, the message being another, that --restart does not leave out what that run accepted.
      assert.match(changed.stderr, /this command cannot continue it \(--text differs from run .*\);\n {2}start over with: msgr send-bulk .* --restart \(run \S+ sent another message \(body\): the rows it accepted are not left out\)/);
      assert.doesNotMatch(changed.stderr, /it leaves out the rows run/);
      // The same text beside a changed file: --restart does leave them out, and says so.
      const original = readFileSync(path);
      writeFileSync(path, `${original.toString('utf8')}+447911100099,Extra,Friday,Hull\n`);
      const edited = await bulk([path, ...text, '--journal', journal, '--sample-to', '+447911199998'], e);
      writeFileSync(path, original);
      assert.equal(edited.code, 0, edited.stderr);
      assert.match(edited.stderr, /this command cannot continue it \(the file changed since run \S+ started\);\n {2}start over with: msgr send-bulk .* --restart \(it leaves out the rows run \S+ accepted\)/);
      // Pasted into a shell as printed (msgr is the msgr under test: test/support/cli.ts).
      const resumed = await new Promise<{ code: number | null; stderr: string }>((done) => {
        execFile('bash', ['-c', `${MSGR.map((w) => JSON.stringify(w)).join(' ')} ${doc.command.replace(/^msgr /, '')}`], { env: e, timeout: 30_000 }, (err, _out, stderr) => done({ code: err === null ? 0 : (err.code as number | null), stderr }));
      });
      // It resumes (the 4 requests in flight at the kill stay in doubt: exit 7) and sends the rest.
      assert.match(resumed.stderr, /resuming run/);
      assert.equal(resumed.code, 7, resumed.stderr);
      assert.match(resumed.stderr, /4 in doubt/);
      assert.deepEqual(textsByNumber(slow.record).get('+447911100005'), ['Hi Zoë 😀']);
    } finally {
      await gate.close();
      await slow.server.close();
    }
  });

  test('kill -9 and --resume of a personalised run: exactly once, each with its own text', async () => {
    const { server, record } = await sandbox({ latencyMs: 25 });
    try {
      const n = 300;
      const rows = Array.from({ length: n }, (_, i) => `+4479111${String(i).padStart(5, '0')},P${i % 37},${i % 3 === 0 ? '' : `d${i % 5}`}`);
      const path = csv(`msisdn,name,day\n${rows.join('\n')}\n`);
      const config = tempDir();
      const journal = join(config, 'journal.jsonl');
      const args = [path, '--from', 'Acme', '--text', 'Dear {{name}}, {{day|soon}}', '--batch-size', '3', '--concurrency', '3', '--journal', journal];
      const resume = [path, '--resume', '--resend-in-doubt', '--journal', journal];
      const kills = await killRepeatedly({ args, resume, journal, env: env(server.url, config), afterMs: [250, 350] });
      assert.ok(kills >= 1);
      const final = await bulk(existsSync(journal) ? resume : args, env(server.url, config));
      assert.equal(final.code, 0, final.stderr);
      const byNumber = textsByNumber(record);
      assert.equal(byNumber.size, n);
      for (let i = 0; i < n; i++) {
        const want = `Dear P${i % 37}, ${i % 3 === 0 ? 'soon' : `d${i % 5}`}`;
        assert.deepEqual(byNumber.get(`+4479111${String(i).padStart(5, '0')}`), [want], `row ${i}`);
      }
    } finally {
      await server.close();
    }
  });

  test('kill -9 while batches wait for a slot: only those whose request left are in doubt; --resume sends the rest', async () => {
    // A gate holds the requests until the kill and two are in flight: once the first request has
    // left (its "out" line is in the journal), most batches journaled ahead of the window are
    // still waiting for a slot when the process dies. (A fixed delay killed it before its journal
    // existed on a loaded machine.) The requests held reach the server after the kill, as those
    // in flight at a kill -9 do; the resume's go straight through.
    const { server, record } = await sandbox();
    const gate = await startGate(server.url);
    try {
      const n = 120;
      const rows = Array.from({ length: n }, (_, i) => `+4479111${String(i).padStart(5, '0')},P${i}`);
      const path = csv(`msisdn,name\n${rows.join('\n')}\n`);
      const config = tempDir();
      const journal = join(config, 'journal.jsonl');
      const args = [path, '--from', 'Acme', '--text', 'Dear {{name}}', '--concurrency', '2', '--journal', journal];
      const child = spawn(...msgrCommand(['send-bulk', ...args]), { cwd: ROOT, env: env(gate.url, config), stdio: 'ignore' });
      const closed = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_code, signal) => r(signal)));
      // Killed once a request has left and more than two batches are journaled ahead of it.
      const ahead = (): number => {
        if (!existsSync(journal)) return 0;
        const text = readFileSync(journal, 'utf8');
        return text.includes('"type":"out"') ? text.split('"type":"send"').length - text.split('"type":"out"').length : 0;
      };
      await waitFor('a request out and more than two batches journaled ahead', () => ahead() > 2, 30_000);
      child.kill('SIGKILL');
      assert.equal(await closed, 'SIGKILL');
      const lines = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; batch?: number });
      const journaled = new Set(lines.filter((l) => l.type === 'send').map((l) => l.batch));
      const left = new Set(lines.filter((l) => l.type === 'out').map((l) => l.batch));
      const answered = new Set(lines.filter((l) => l.type === 'done').map((l) => l.batch));
      const waiting = [...journaled].filter((b) => !left.has(b));
      assert.ok(waiting.length > 2, `batches journaled ahead and never sent: ${waiting.length}`);
      const leftUnanswered = [...left].filter((b) => !answered.has(b)).length;
      // What reached the server's door before the kill (the gate holds it): no more connections
      // than batches marked as having left, as a request leaves only after its "out" line.
      assert.ok(gate.held() <= left.size, `${gate.held()} connections at the gate, ${left.size} batches marked as left`);
      gate.open();

      const resumed = await bulk([path, '--resume', '--journal', journal, '--json'], env(gate.url, config));
      const doc = JSON.parse(resumed.stdout) as { inDoubt: number };
      assert.equal(doc.inDoubt, leftUnanswered, resumed.stderr);
      assert.ok(doc.inDoubt <= 2, `in doubt: ${doc.inDoubt} (at most the two requests in flight)`);
      const byNumber = textsByNumber(record);
      for (let i = 0; i < n; i++) assert.ok((byNumber.get(`+4479111${String(i).padStart(5, '0')}`)?.length ?? 0) <= 1, `row ${i} sent twice`);
      assert.ok(byNumber.size >= n - doc.inDoubt, `${byNumber.size} of ${n} numbers got their message, ${doc.inDoubt} in doubt`);
    } finally {
      await gate.close();
      await server.close();
    }
  });

});
