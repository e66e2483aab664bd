// The send pass's rules with a fake MessagesClient; the journal, spool, report, window, gate and
// limiter are the real ones, on files in a temporary folder.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { MessagesClient } from '../../../../src/http/client.js';
import type { Outcome } from '../../../../src/http/outcome.js';
import { DiskFullError, Journal } from '../../../../src/bulk/journal/writer.js';
import { BatchState } from '../../../../src/bulk/journal/records.js';
import { Gate, RateLimiter, Window } from '../../../../src/bulk/send-pass/limiter.js';
import { ReportWriter } from '../../../../src/bulk/report/report-file.js';
import type { Progress, ProgressStats } from '../../../../src/bulk/send-pass/progress.js';
import { MAX_CONSECUTIVE_FAILURES } from '../../../../src/bulk/send-pass/accounting.js';
import { Sender, type SenderJournal } from '../../../../src/bulk/send-pass/sender.js';
import { spoolFile, SpoolWriter, type SpoolSource } from '../../../../src/bulk/preflight/spool.js';
import { idempotencyKey } from '../../../../src/bulk/journal/run-keys.js';
import { parseRate } from '../../../../src/bulk/campaign.js';
import { runHeader } from '../../../support/journal.js';
import { tempDir } from '../../../support/cli.js';

const RUN_ID = '20260101T000000Z-test';

/** One spool row: a number to send, or a row set aside by the preflight. */
type Row = { send: string } | { duplicate: string } | { invalid: string };

interface Call {
  readonly key: string;
  readonly numbers: string[];
  readonly startedAt: number;
}

type Respond = (call: Call, index: number) => Promise<Outcome> | Outcome;

interface Setup {
  readonly rows: readonly Row[];
  readonly batchSize: number;
  readonly concurrency: number;
  readonly respond: Respond;
  readonly report?: boolean;
  readonly limiter?: RateLimiter;
  readonly window?: Window;
  /** Each batch's state in an earlier run (--resume). */
  readonly states?: Uint8Array;
  /** Receives every progress update. */
  readonly onProgress?: (stats: ProgressStats) => void;
}

const accepted = (call: Call): Outcome => ({
  kind: 'accepted',
  status: 202,
  body: { messages: call.numbers.map((msisdn) => ({ id: `id-${msisdn}`, msisdn })) },
  text: '',
  attempts: 1,
});

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function sends(n: number): Row[] {
  return Array.from({ length: n }, (_, i) => ({ send: `+4479111234${String(i).padStart(2, '0')}` }));
}

/** The sender under test, for a fake client that plays the real client's onRetry. */
let current: Sender | undefined;

async function runSender(s: Setup): Promise<{ sender: Sender; calls: Call[]; logs: string[]; window: Window; journal: string; report: string | undefined }> {
  const dir = tempDir('msgr-unit-sender-');
  const spoolPath = join(dir, 'spool');
  const spool = new SpoolWriter(spoolPath);
  let toSend = 0;
  s.rows.forEach((row, i) => {
    const line = i + 2;
    if ('send' in row) {
      spool.send(line, row.send, JSON.stringify({ msisdn: row.send }));
      toSend++;
    } else if ('duplicate' in row) spool.skip('D', line, row.duplicate);
    else spool.invalid(line, row.invalid, 'not a phone number');
  });
  spool.close();
  const header = runHeader({
    runId: RUN_ID,
    createdAt: new Date(0).toISOString(),
    msgr: 'test',
    input: { path: join(dir, 'list.csv'), stdin: false, size: 0, mtimeMs: 0, quickHash: '', hash: '' },
    shape: { batchSize: s.batchSize, skipInvalid: true },
    message: { accountReference: 'ACME01', channel: 'SMS', from: 'Acme', body: { text: 'Hi' } },
    totals: { rows: s.rows.length, toSend, requests: Math.ceil(toSend / s.batchSize) },
  });
  const journalPath = join(dir, 'journal.jsonl');
  const journal = Journal.create(journalPath, header, () => new Date());
  const reportPath = s.report === true ? join(dir, 'report.jsonl') : undefined;
  const report = reportPath !== undefined ? new ReportWriter(reportPath, 4242) : undefined;
  const calls: Call[] = [];
  const logs: string[] = [];
  const t0 = performance.now();
  const client: MessagesClient = {
    send: () => Promise.reject(new Error('bulk sends raw bodies')),
    sendRaw: async (json, options) => {
      const body = JSON.parse(json) as { recipients: Array<{ msisdn: string }> };
      const call: Call = { key: options?.idempotencyKey ?? '', numbers: body.recipients.map((r) => r.msisdn), startedAt: performance.now() - t0 };
      calls.push(call);
      return s.respond(call, calls.length - 1);
    },
    close: () => Promise.resolve(),
  };
  const window = s.window ?? new Window(s.concurrency);
  const sender: Sender = new Sender({
    idempotency: RUN_ID,
    journal,
    states: s.states,
    frame: { prefix: '{"from":"Acme","recipients":[', suffix: ']}' },
    batchSize: s.batchSize,
    toSend,
    resendInDoubt: false,
    window,
    limiter: s.limiter,
    gate: new Gate(),
    report,
    progress: { update: (stats) => s.onProgress?.(stats), log: (line) => void logs.push(line), stop: () => {} },
    client,
    signal: new AbortController().signal,
    debug: (line) => void logs.push(line),
  });
  current = sender;
  await sender.sendAll(spoolFile(spoolPath));
  journal.close();
  report?.close();
  return { sender, calls, logs, window, journal: journalPath, report: reportPath };
}

function journalDone(path: string): Array<{ batch: number; outcome: string; status?: number }> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { type: string; batch: number; outcome: string; status?: number })
    .filter((r) => r.type === 'done');
}

describe('Sender', () => {
  test('a 429 slows the whole run: no batch starts during the pause', async () => {
    const PAUSE = 300;
    let throttledAt = 0;
    const { sender, calls } = await runSender({
      rows: sends(12),
      batchSize: 1,
      concurrency: 4,
      respond: async (call, i) => {
        if (i === 0) {
          // What the real client does when a 429 comes back: tells the run, then waits.
          throttledAt = call.startedAt;
          current?.onRetry({ attempt: 1, delayMs: PAUSE, reason: 'HTTP 429', status: 429 });
          await wait(PAUSE);
        } else await wait(5);
        return accepted(call);
      },
    });
    const r = sender.result();
    assert.equal(r.accepted, 12);
    assert.equal(r.throttled, 1);
    // Batches already past the gate when the 429 came (at most the first window) go on; no
    // later one starts before the pause is over.
    const early = calls.slice(4).filter((c) => c.startedAt < throttledAt + PAUSE - 20);
    assert.deepEqual(early.map((c) => c.numbers), [], 'batches started during the pause');
  });

  test('a 429 halves the window of requests in flight and, under --rate, lowers the rate', async () => {
    const limiter = new RateLimiter(parseRate('100000/s')!);
    const window = new Window(4);
    const before = limiter.perMs;
    let limitAfter = 0;
    const { sender } = await runSender({
      rows: sends(2),
      batchSize: 1,
      concurrency: 4,
      window,
      limiter,
      respond: (call, i) => {
        if (i === 0) {
          current?.onRetry({ attempt: 1, delayMs: 1, reason: 'HTTP 429', status: 429 });
          limitAfter = window.limit;
        }
        return accepted(call);
      },
    });
    assert.equal(sender.result().accepted, 2);
    assert.equal(limitAfter, 2);
    assert.ok(Math.abs(limiter.perMs - before * 0.8) < 1e-9, `rate ${limiter.perMs} per ms, was ${before}`);
  });

  test('a retry for another reason does not slow the run down, and is said (once in a while, not for each batch)', async () => {
    const { sender, window, logs } = await runSender({
      rows: sends(4),
      batchSize: 1,
      concurrency: 4,
      respond: (call, i) => {
        if (i <= 1) current?.onRetry({ attempt: 1, delayMs: 1, reason: 'cannot reach api.example.com:443: connection refused' });
        return accepted(call);
      },
    });
    assert.equal(sender.result().throttled, 0);
    assert.equal(window.limit, 4);
    assert.deepEqual(
      logs.filter((l) => l.includes('connection refused')),
      ['cannot reach api.example.com:443: connection refused; trying again in 0.0 s', 'retrying a batch in 0.0 s (cannot reach api.example.com:443: connection refused)'],
    );
  });

  test(`${MAX_CONSECUTIVE_FAILURES} batches in a row without an answer stop the run`, async () => {
    const { sender, calls } = await runSender({
      rows: sends(10),
      batchSize: 1,
      concurrency: 1,
      respond: () => ({ kind: 'not-sent', status: 429, message: 'slow down', attempts: 8 }),
    });
    const r = sender.result();
    assert.equal(MAX_CONSECUTIVE_FAILURES, 5);
    assert.equal(calls.length, 5);
    assert.equal(r.stopped, 'failing');
    assert.equal(r.notSent, 10);
    assert.equal(r.lastFailure, 'HTTP 429: slow down');
  });

  test('a connection never made stops the run at its first batch: the rest not sent, nothing in doubt', async () => {
    const { sender, calls } = await runSender({
      rows: sends(10),
      batchSize: 1,
      concurrency: 1,
      respond: () => ({ kind: 'not-sent', message: 'cannot reach api.example.com:443: connection refused', attempts: 3, code: 'ECONNREFUSED', hint: 'Nothing accepts connections there.' }),
    });
    const r = sender.result();
    assert.equal(calls.length, 1);
    assert.equal(r.stopped, 'unreachable');
    assert.deepEqual([r.notSent, r.inDoubt, r.accepted], [10, 0, 0]);
    assert.equal(r.lastFailure, 'cannot reach api.example.com:443: connection refused');
    assert.equal(r.lastHint, 'Nothing accepts connections there.');
  });

  test('batches in doubt as the API went away, then a refused connection: the stop says why (unreachable), the batches in doubt stay in doubt', async () => {
    const { sender, calls } = await runSender({
      rows: sends(10),
      batchSize: 1,
      concurrency: 1,
      respond: (call, i) =>
        i < 2 ? accepted(call)
        : i < 6 ? { kind: 'unknown', message: 'the connection was closed before an answer came', attempts: 1, code: 'ECONNRESET' }
        : { kind: 'not-sent', message: 'cannot reach api.example.com:443: connection refused', attempts: 3, code: 'ECONNREFUSED' },
    });
    const r = sender.result();
    assert.equal(calls.length, 7, 'four in doubt in a row, then the refusal: not stopped as "failing" by the count');
    assert.equal(r.stopped, 'unreachable');
    assert.deepEqual([r.accepted, r.inDoubt, r.notSent], [2, 4, 4]);
  });

  for (const status of [404, 405, 308]) {
    test(`HTTP ${status} stops the run at its first answer: its rows and the rest not sent (not rejected), nothing in doubt`, async () => {
      const { sender, calls, journal } = await runSender({
        rows: sends(10),
        batchSize: 2,
        concurrency: 1,
        respond: () => ({ kind: 'rejected', status, body: undefined, message: 'Not Found', attempts: 1 }),
      });
      const r = sender.result();
      assert.equal(calls.length, 1);
      assert.equal(r.stopped, 'config');
      assert.equal(r.wrongAddress, status);
      assert.deepEqual([r.rejected, r.notSent, r.inDoubt], [0, 10, 0]);
      assert.deepEqual(journalDone(journal).map((d) => [d.batch, d.outcome]).slice(0, 1), [[0, 'not-sent']]);
    });
  }

  test('failures with an answer in between do not stop the run', async () => {
    const { sender, calls } = await runSender({
      rows: sends(12),
      batchSize: 1,
      concurrency: 1,
      respond: (call, i) => (i === 4 ? accepted(call) : { kind: 'unknown', message: 'socket hang up', attempts: 1 }),
    });
    const r = sender.result();
    assert.equal(calls.length, 10, 'four failures, an answer, then five failures');
    assert.equal(r.stopped, 'failing');
    assert.equal(r.accepted, 1);
    assert.equal(r.inDoubt, 9);
    assert.equal(r.notSent, 2);
  });

  test('a 409 counts as in doubt, not rejected; a 422 is rejected', async () => {
    const { sender, journal } = await runSender({
      rows: sends(6),
      batchSize: 2,
      concurrency: 1,
      respond: (call, i) =>
        i === 0 ? { kind: 'rejected', status: 409, body: undefined, message: 'request in progress', attempts: 1 }
        : i === 1 ? { kind: 'rejected', status: 422, body: undefined, message: 'bad from', attempts: 1 }
        : accepted(call),
    });
    const r = sender.result();
    assert.equal(r.inDoubt, 2);
    assert.equal(r.rejected, 2);
    assert.equal(r.accepted, 2);
    assert.deepEqual(r.inDoubtBatches, [{ batch: 0, idempotencyKey: idempotencyKey(RUN_ID, 0), firstLine: 2, recipients: 2 }]);
    assert.deepEqual(journalDone(journal).map((d) => [d.batch, d.outcome, d.status]), [[0, 'in-doubt', 409], [1, 'rejected', 422], [2, 'accepted', 202]]);
  });

  test('batches in doubt are listed in the order of the file, whatever order their outcomes came in', async () => {
    const { sender } = await runSender({
      rows: sends(6),
      batchSize: 2,
      concurrency: 3,
      // The first batch's outcome comes last.
      respond: async (_call, i) => {
        await wait((3 - i) * 30);
        return { kind: 'rejected', status: 409, body: undefined, message: 'request in progress', attempts: 1 };
      },
    });
    assert.deepEqual(sender.result().inDoubtBatches.map((b) => b.batch), [0, 1, 2]);
  });

  test('progress counts what an earlier run settled as earlier, so a resume\'s rate and ETA are this run\'s', async () => {
    // Batches 0 and 1 accepted, 2 rejected and 3 in doubt by an earlier run; 4 and 5 are sent now.
    const states = Uint8Array.from([BatchState.accepted, BatchState.accepted, BatchState.rejected, BatchState.inDoubt, BatchState.none, BatchState.none]);
    const seen: ProgressStats[] = [];
    const { calls } = await runSender({ rows: sends(12), batchSize: 2, concurrency: 1, states, respond: accepted, onProgress: (p) => void seen.push(p) });
    assert.equal(calls.length, 2);
    const last = seen.at(-1)!;
    assert.equal(last.done, 12);
    assert.equal(last.earlier, 8);
  });

  test('report lines come out in input order, whatever order the answers come in', async () => {
    const rows: Row[] = [...sends(2), { duplicate: '+447911123400' }, ...sends(4).slice(2), { invalid: '12ab' }, { send: '+447911123499' }];
    const finished: number[] = [];
    const { report, calls } = await runSender({
      rows,
      batchSize: 1,
      concurrency: 4,
      report: true,
      respond: async (call, i) => {
        // Later batches answer first.
        await wait((4 - i) * 40);
        finished.push(i);
        return accepted(call);
      },
    });
    assert.equal(calls.length, 5);
    assert.notDeepEqual(finished, [...finished].sort((a, b) => a - b), 'the answers came in order: the test shows nothing');
    const lines = readFileSync(report!, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { line: number; number: string; outcome: string; messageId: string | null });
    assert.deepEqual(
      lines.map((l) => [l.line, l.outcome, l.messageId]),
      [
        [2, 'accepted', 'id-+447911123400'],
        [3, 'accepted', 'id-+447911123401'],
        [4, 'duplicate', null],
        [5, 'accepted', 'id-+447911123402'],
        [6, 'accepted', 'id-+447911123403'],
        [7, 'invalid', null],
        [8, 'accepted', 'id-+447911123499'],
      ],
    );
  });
});

describe('the sender when the journal cannot write', () => {
  /** Ten batches of two; the journal refuses "send" lines from batch `fullFrom` on. */
  /** What happened, in order: "journal k" (its line asked for), "durable k", "send k". */
  interface Run {
    sent: number[];
    done: Array<[number, string]>;
    result: ReturnType<Sender['result']>;
    logs: string[];
    events: string[];
  }

  async function run(fail: (batch: number) => Error | undefined, interrupt?: AbortController, opts: { flushMs?: number; onSend?: (batch: number) => void; failLeaving?: (batch: number) => Error | undefined; states?: Uint8Array; onEndOfTurn?: (turn: number) => void } = {}): Promise<Run> {
    const sent: number[] = [];
    const done: Array<[number, string]> = [];
    const logs: string[] = [];
    const events: string[] = [];
    let turns = 0;
    const journal: SenderJournal = {
      startedDurably: async (rec) => {
        events.push(`journal ${rec.batch}`);
        await (opts.flushMs !== undefined ? wait(opts.flushMs) : Promise.resolve());
        const err = fail(rec.batch);
        if (err !== undefined) throw err;
        events.push(`durable ${rec.batch}`);
      },
      need: () => undefined,
      leaving: (batch) => {
        const err = opts.failLeaving?.(batch);
        if (err !== undefined) throw err;
      },
      leavingAll: (batches) => {
        events.push(`out ${batches.join(',')}`);
        for (const batch of batches) {
          const err = opts.failLeaving?.(batch);
          if (err !== undefined) throw err;
        }
      },
      waiting: () => undefined,
      answered: (rec) => void done.push([rec.batch, rec.outcome]),
      atEndOfTurn: (fn) => {
        opts.onEndOfTurn?.(++turns);
        setImmediate(fn);
      },
    };
    const client: MessagesClient = {
      send: () => Promise.reject(new Error('unused')),
      sendRaw: async (json) => {
        const first = (JSON.parse(json) as { recipients: Array<{ n: number }> }).recipients[0]?.n ?? -1;
        sent.push(first / 2);
        events.push(`send ${first / 2}`);
        opts.onSend?.(first / 2);
        await new Promise((r) => setTimeout(r, 30));
        return { kind: 'accepted', status: 202, body: undefined, text: '', attempts: 1 } satisfies Outcome;
      },
      close: () => Promise.resolve(),
    };
    const progress: Progress = { update: () => undefined, log: (l) => void logs.push(l), stop: () => undefined };
    const spool: SpoolSource = async (onLine, afterChunk) => {
      for (let i = 0; i < 20; i++) {
        onLine('S', i + 2, `+4479111${String(i).padStart(5, '0')}`, JSON.stringify({ n: i }));
        if (i % 4 === 3) await afterChunk?.();
      }
    };
    const sender = new Sender({
      idempotency: 'r',
      journal,
      states: opts.states,
      frame: { prefix: '{"recipients":[', suffix: ']}' },
      batchSize: 2,
      toSend: 20,
      resendInDoubt: opts.states !== undefined,
      window: new Window(3),
      limiter: undefined,
      gate: new Gate(),
      report: undefined,
      progress,
      client,
      signal: (interrupt ?? new AbortController()).signal,
      debug: () => undefined,
    });
    await sender.sendAll(spool);
    return { sent, done, result: sender.result(), logs, events };
  }

  test('no request leaves before its "send" line is on disk; the lines are written ahead of the window', async () => {
    const r = await run(() => undefined, undefined, { flushMs: 15 });
    assert.equal(r.result.accepted, 20);
    for (let batch = 0; batch < 10; batch++) {
      const durable = r.events.indexOf(`durable ${batch}`);
      assert.ok(durable >= 0 && durable < r.events.indexOf(`send ${batch}`), `batch ${batch}: ${r.events.join(', ')}`);
    }
    // Window 3: more lines than that were asked for before the first request left.
    const before = r.events.slice(0, r.events.indexOf('send 0')).filter((e) => e.startsWith('journal')).length;
    assert.ok(before > 3, r.events.join(', '));
  });

  test('the batches that get a slot in one turn leave together: one write of their "out" lines, before any of them is sent', async () => {
    const r = await run(() => undefined);
    assert.equal(r.result.accepted, 20);
    const outs = r.events.filter((e) => e.startsWith('out '));
    // Window 3: the first three leave together.
    assert.equal(outs[0], 'out 0,1,2', r.events.join(', '));
    for (let batch = 0; batch < 10; batch++) {
      const out = r.events.findIndex((e) => e.startsWith('out ') && e.slice(4).split(',').includes(String(batch)));
      assert.ok(out >= 0 && out < r.events.indexOf(`send ${batch}`), `batch ${batch}: ${r.events.join(', ')}`);
    }
  });

  test('a stop closes the batches journaled ahead as not sent, so a resume sends them; none is in doubt', async () => {
    const c = new AbortController();
    const r = await run(() => undefined, c, { onSend: (batch) => batch === 0 && c.abort('SIGINT') });
    assert.equal(r.result.stopped, 'interrupted');
    assert.equal(r.result.inDoubt, 0);
    const journaled = r.events.filter((e) => e.startsWith('journal')).map((e) => Number(e.split(' ')[1]));
    assert.ok(journaled.length > r.sent.length, 'nothing was journaled ahead');
    // Every batch with a "send" line has one answer: accepted if it left, else not sent.
    assert.deepEqual(
      r.done.map(([b, o]) => `${b}:${o}`).sort(),
      journaled.map((b) => `${b}:${r.sent.includes(b) ? 'accepted' : 'not-sent'}`).sort(),
    );
    assert.equal(r.result.accepted + r.result.notSent, 20);
  });

  test('a stop between a batch getting its slot and the end of that turn: it never leaves (no "out" line, no request) and is closed as not sent, not in doubt', async () => {
    const c = new AbortController();
    // The signal comes in the same turn as the second group's departure, before that group goes.
    const r = await run(() => undefined, c, { onEndOfTurn: (turn) => turn === 2 && void setImmediate(() => c.abort('SIGINT')) });
    assert.equal(r.result.stopped, 'interrupted');
    assert.equal(r.result.inDoubt, 0);
    // Window 3: only the first group left.
    assert.deepEqual([...r.sent].sort(), [0, 1, 2], r.events.join(', '));
    assert.deepEqual(r.events.filter((e) => e.startsWith('out ')), ['out 0,1,2'], r.events.join(', '));
    // Every batch with a "send" line has its answer, written before sendAll returned.
    const journaled = r.events.filter((e) => e.startsWith('durable')).map((e) => Number(e.split(' ')[1]));
    assert.ok(journaled.length > 3, r.events.join(', '));
    assert.deepEqual(
      r.done.map(([b, o]) => `${b}:${o}`).sort(),
      journaled.map((b) => `${b}:${b <= 2 ? 'accepted' : 'not-sent'}`).sort(),
    );
    assert.equal(r.result.accepted, 6);
    assert.equal(r.result.notSent, 14);
  });

  test('a full disk: the refused batch and every later one stay unsent, those in flight are answered and recorded, nothing in doubt', async () => {
    const r = await run((batch) => (batch >= 4 ? new DiskFullError('/state/runs/x') : undefined));
    // 0-2 leave at once (window 3); 3 leaves if its turn came before the refusal, else it is
    // closed as not sent with them: once space has run out no batch leaves.
    const sent = [...r.sent].sort();
    assert.ok(JSON.stringify(sent) === '[0,1,2]' || JSON.stringify(sent) === '[0,1,2,3]', JSON.stringify(sent));
    assert.deepEqual(
      r.done.map(([b, o]) => `${b}:${o}`).sort(),
      sent.length === 4 ? ['0:accepted', '1:accepted', '2:accepted', '3:accepted'] : ['0:accepted', '1:accepted', '2:accepted', '3:not-sent'],
    );
    assert.equal(r.result.stopped, 'disk-full');
    assert.equal(r.result.fullFolder, '/state/runs/x');
    assert.equal(r.result.inDoubt, 0);
    assert.equal(r.result.accepted, sent.length * 2);
    assert.equal(r.result.notSent, 20 - sent.length * 2);
    assert.ok(r.logs.some((l) => l.startsWith('no space left in /state/runs/x: sending no new batches')), r.logs.join('\n'));
  });

  test('a full disk as a request is about to leave: its batch is closed as not sent in the journal, not left for a reboot to put in doubt', async () => {
    const r = await run(() => undefined, undefined, { failLeaving: (batch) => (batch === 2 ? new DiskFullError('/state/runs/x') : undefined) });
    assert.ok(!r.sent.includes(2));
    assert.ok(r.done.some(([b, o]) => b === 2 && o === 'not-sent'), JSON.stringify(r.done));
    assert.equal(r.result.stopped, 'disk-full');
    assert.equal(r.result.inDoubt, 0);
  });

  test('--resend-in-doubt stopped before the resends left: those batches are still in doubt, not "not sent"', async () => {
    const c = new AbortController();
    const r = await run(() => undefined, c, { states: new Uint8Array(10).fill(BatchState.inDoubt), onSend: (batch) => batch === 0 && c.abort('SIGINT') });
    assert.equal(r.result.stopped, 'interrupted');
    assert.equal(r.result.notSent, 0);
    assert.equal(r.result.accepted + r.result.inDoubt, 20);
    assert.ok(r.result.inDoubt >= 14, String(r.result.inDoubt));
    assert.equal(r.result.inDoubtBatches.length, r.result.inDoubt / 2);
  });

  test('any other journal failure: not sent, not in doubt, and the run stops', async () => {
    const r = await run((batch) => (batch === 1 ? Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }) : undefined));
    assert.equal(r.result.stopped, 'journal');
    assert.equal(r.result.inDoubt, 0);
    assert.ok(!r.sent.includes(1));
    assert.match(r.result.journalError ?? '', /EIO/);
  });

  test('a stop by SIGTERM is named as such', async () => {
    const c = new AbortController();
    c.abort('SIGTERM');
    const r = await run(() => undefined, c);
    assert.deepEqual(r.sent, []);
    assert.equal(r.result.stopped, 'interrupted');
    assert.match(r.logs[0] ?? '', /^SIGTERM received: sending no new batches/);
  });
});
