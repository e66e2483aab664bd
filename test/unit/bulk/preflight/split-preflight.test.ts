// The preflight split over two worker threads (src/bulk/preflight/parallel.ts) must give exactly what the
// single pass gives: the same requests in the same order, report, totals, problems and errors.
// MSGR_BULK_PARALLEL_MIN_BYTES=0 splits even these small files; `off` forces the single pass.
// `-v` prints a debug line when the split was used, so each test also proves it took that path.
// Run in-process (test/support/in-process.ts): what a user sees, without a process.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/server.js';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';

const KEY = 'test-key-1234';
const SPLIT = /preflight: two threads, the second from line (\d+)/;

interface Recorded {
  request: { recipients: Array<{ msisdn: string; variables?: Record<string, string> }> };
}

function requests(record: string): Array<Array<{ msisdn: string; variables?: Record<string, string> }>> {
  if (!existsSync(record)) return [];
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as Recorded).request.recipients);
}

function env(baseUrl: string, split: boolean, extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({
    MSGR_CONFIG_DIR: tempDir(),
    MSGR_API_KEY: KEY,
    MSGR_BASE_URL: baseUrl,
    MSGR_ACCOUNT_REFERENCE: 'ACME01',
    MSGR_BULK_PARALLEL_MIN_BYTES: split ? '0' : 'off',
    ...extra,
  });
}

// One request at a time: the sandbox records requests as they complete, so this keeps their order.
// --no-render: the text goes out as written with the columns as variables; a rendered text is read in one pass.
const MSG = ['--from', 'Acme', '--text', 'Hello {{name}}', '--no-render', '--concurrency', '1'];

/** The parts of a --json summary that do not depend on the run (id, paths, time). */
function stable(stdout: string): unknown {
  const s = JSON.parse(stdout) as Record<string, unknown>;
  for (const k of ['runId', 'journal', 'report', 'resume', 'seconds', 'file']) delete s[k];
  // The opt-out store's files are in each run's own state folder.
  if (typeof s.optOuts === 'object' && s.optOuts !== null) s.optOuts = { ...s.optOuts, files: undefined };
  return s;
}

const uk = (i: number): string => `+4479111${String(i).padStart(5, '0')}`;

/**
 * A file that exercises the split: BOM, CRLF, quoted fields with line breaks (CRLF and LF) and
 * quotes, invalid rows, possible-but-outside-plan numbers, excluded numbers, and duplicates of
 * first-half numbers all over the second half (some twice).
 */
function trickyCsv(): { path: string; exclude: string } {
  const dir = tempDir('msgr-par-');
  const rows: string[] = ['msisdn,name,note'];
  const n = 120;
  for (let i = 0; i < n; i++) {
    const note = i % 7 === 0 ? `"two\r\nlines, ""quoted"""` : i % 11 === 0 ? `"lf\ninside"` : `plain ${i}`;
    let number = uk(i);
    if (i % 13 === 5) number = 'not a number';
    if (i % 17 === 3) number = `+44 7700 900${String(i).padStart(3, '0')}`;
    if (i >= n / 2 && i % 5 === 0) number = uk(i - 50); // a duplicate of the first half
    if (i >= n / 2 && i % 9 === 0) number = uk(3); // the same duplicate, many times
    if (i === n / 2 + 1) number = uk(n / 2 + 2); // a duplicate within the second half, first there
    if (i === n / 2 + 4) number = '+447700900003'; // a duplicate of a first-half number outside the plan
    // A first-half number twice in the second half: another message, then its first message again.
    if (i === n / 2 + 6) rows.push(`${uk(8)},Someone else,plain`);
    else if (i === n / 2 + 8) rows.push(`${uk(8)},Näme8,plain 8`);
    else rows.push(`${number},Näme${i},${note}`);
  }
  const path = join(dir, 'tricky.csv');
  writeFileSync(path, `\uFEFF${rows.join('\r\n')}\r\n`);
  const exclude = join(dir, 'optout.txt');
  writeFileSync(exclude, `${uk(10)}\n${uk(100)}\n${uk(101)}\n+447700900020\n`);
  return { path, exclude };
}

describe('send-bulk with the preflight split over two threads', () => {
  let server: RunningSandbox;
  let record: string;
  before(async () => {
    record = join(tempDir('msgr-par-rec-'), 'record.jsonl');
    server = await startSandbox({ port: 0, record, apiKey: KEY });
  });
  after(async () => {
    await server.close();
  });

  async function both(args: string[], file: string): Promise<Array<{ r: RunResult; requests: ReturnType<typeof requests>; report: string }>> {
    const out = [];
    for (const split of [true, false]) {
      writeFileSync(record, '');
      const dir = tempDir('msgr-par-out-');
      const report = join(dir, 'report.csv');
      const r = await runInProcess(['send-bulk', file, ...MSG, '--journal', join(dir, 'j.jsonl'), '--report', report, '--json', '-v', ...args], { env: env(server.url, split), timeoutMs: 60_000 });
      // Message ids are the sandbox's random batch tokens: the same shape, other values.
      const text = existsSync(report) ? readFileSync(report, 'utf8').replace(/sbx_m_[0-9a-f]+_/g, 'sbx_m_*_') : '';
      out.push({ r, requests: requests(record), report: text });
    }
    return out;
  }

  test('same requests, report and totals as one pass: BOM, CRLF, quoted line breaks, duplicates across the split, --exclude, --skip-invalid', async () => {
    const { path, exclude } = trickyCsv();
    // Numbers repeat with other names: --first-per-number, judged against the number's first row
    // in the whole file, also for a second half's rows of a first-half number.
    const [par, one] = await both(['--skip-invalid', '--allow-unlisted-numbers', '--first-per-number', '--exclude', exclude, '--batch-size', '7'], path);
    assert.ok(par !== undefined && one !== undefined);
    assert.match(par.r.stderr, SPLIT, 'the split was used');
    assert.doesNotMatch(one.r.stderr, SPLIT);
    assert.equal(par.r.code, 0, par.r.stderr);
    assert.equal(one.r.code, 0, one.r.stderr);
    assert.deepEqual(stable(par.r.stdout), stable(one.r.stdout));
    assert.deepEqual(par.requests, one.requests);
    assert.equal(par.report, one.report);
    // The file really has what the test is about.
    const s = JSON.parse(par.r.stdout) as { duplicates: number; invalid: number; excluded: number; outsidePlan: number };
    assert.ok(s.duplicates >= 10 && s.invalid > 0 && s.excluded > 0 && s.outsidePlan > 0, JSON.stringify(s));
    // Outside the plan (sent as --allow-unlisted-numbers says) counts rows sent: not the excluded one, not the duplicate.
    assert.equal(s.outsidePlan, par.requests.flat().filter((x) => x.msisdn.startsWith('+447700900')).length);
    const splitLine = Number(SPLIT.exec(par.r.stderr)?.[1]);
    assert.ok(splitLine > 60, `split at line ${splitLine}`);
    // Duplicates of first-half numbers after the split are reported as duplicates there, with why.
    assert.match(par.report, new RegExp(`\\n\\d+,\\${uk(3)},duplicate,,,another message to the number of line \\d+: left out by --first-per-number,\\n`));
    assert.ok((JSON.parse(par.r.stdout) as { differentMessages: number }).differentMessages >= 10);
    // Judged against the number's first row in the whole file, not the second half's first.
    const eights = par.report.split('\n').filter((l) => l.includes(`,${uk(8)},`));
    assert.ok(eights.slice(1).every((l) => Number(l.split(',')[0]) >= splitLine), `after the split (line ${splitLine}): ${eights.join(' | ')}`);
    // The last column says what each sent row's request carried: not compared here.
    assert.deepEqual(eights.map((l) => l.replace(/^\d+,/, '').replace(/,[^,]*$/, '')), [
      `${uk(8)},accepted,202,sbx_m_*_0,`,
      `${uk(8)},duplicate,,,another message to the number of line 12: left out by --first-per-number`,
      `${uk(8)},duplicate,,,same number and message as line 12`,
    ]);
  });

  test('numbers with different messages on both sides of the split, and across it, stop the run as one pass does (exit 2, the same numbers and lines)', async () => {
    const dir = tempDir('msgr-par-');
    const path = join(dir, 'several.csv');
    const rows = ['msisdn,name'];
    for (let i = 0; i < 200; i++) rows.push(`${uk(i)},N${i}`);
    // Across the split: a first-half number with another name; and one with the same name (a duplicate only).
    rows.push(`${uk(3)},Other`, `${uk(4)},N4`);
    // Within the second half: a new number twice, with two names.
    rows.push(`${uk(900)},X`, `${uk(900)},Y`);
    // Within the first half: put one near the top.
    rows.splice(3, 0, `${uk(1)},Again`);
    writeFileSync(path, `${rows.join('\n')}\n`);
    const results: Array<{ r: RunResult; req: ReturnType<typeof requests> }> = [];
    for (const split of [true, false]) {
      writeFileSync(record, '');
      const r = await runInProcess(['send-bulk', path, ...MSG, '--journal', join(dir, `j${split}.jsonl`), '--json', '-v'], { env: env(server.url, split) });
      results.push({ r, req: requests(record) });
    }
    const [par, one] = results as [(typeof results)[0], (typeof results)[0]];
    assert.match(par.r.stderr, SPLIT);
    assert.equal(par.r.code, 2, par.r.stderr);
    assert.equal(one.r.code, 2, one.r.stderr);
    assert.deepEqual([par.req, one.req], [[], []], 'nothing was sent');
    assert.deepEqual(stable(par.r.stdout), stable(one.r.stdout));
    const doc = JSON.parse(par.r.stdout) as { differentMessages: number; repeatedNumbers: Array<{ number: string; lines: number[] }> };
    assert.equal(doc.differentMessages, 3);
    assert.deepEqual(doc.repeatedNumbers, [
      { number: uk(1), lines: [3, 4], rows: 2 },
      { number: uk(3), lines: [6, 203], rows: 2 },
      { number: uk(900), lines: [205, 206], rows: 2 },
    ]);
    const seconds = (t: string): string => t.replace(/\(\d+\.\d s\)/, '(… s)');
    assert.equal(seconds(par.r.stderr.replace(/.*preflight: two threads.*\n/, '')), seconds(one.r.stderr));
  });

  test('stray line ends (a bare CR, an LF alone in a CRLF file, a CR in an LF file) are never split: the single pass decides', async () => {
    const dir = tempDir('msgr-par-ends-');
    const rows = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `${uk(from + i)},N${from + i}`);
    const files = {
      // The smallest case a review found: a bare CR joins two lines into one record, and the LF
      // that ends the next line is not a record end in a CRLF file.
      'joined.csv': 'msisdn;name\r\n+447400900017;Ann;Bob Smith\r+447400900017;x\u2028y\n+447400900003; sp \n',
      'crlf-with-lf.csv': `msisdn,name\r\n${rows(30).join('\r\n')}\r\n${rows(1, 30)[0]}\n${rows(30, 31).join('\r\n')}\r\n`,
      'crlf-with-cr.csv': `msisdn,name\r\n${rows(10).join('\r\n')}\r${rows(50, 10).join('\r\n')}\r\n`,
      'lf-with-cr.csv': `msisdn,name\n${rows(10).join('\n')}\r${rows(50, 10).join('\n')}\n`,
    };
    for (const [name, text] of Object.entries(files)) {
      const path = join(dir, name);
      writeFileSync(path, text);
      const [par, one] = await both(['--skip-invalid', '--batch-size', '3'], path);
      assert.ok(par !== undefined && one !== undefined);
      assert.doesNotMatch(par.r.stderr, SPLIT, `${name}: not split`);
      assert.equal(par.r.code, one.r.code, `${name}: ${par.r.stderr}`);
      assert.deepEqual(stable(par.r.stdout), stable(one.r.stdout), name);
      assert.deepEqual(par.requests, one.requests, name);
      assert.equal(par.report, one.report, name);
    }
  });

  test('invalid rows on both sides stop the run with the same lines and columns (exit 2)', async () => {
    const { path } = trickyCsv();
    const [par, one] = await both([], path);
    assert.ok(par !== undefined && one !== undefined);
    assert.match(par.r.stderr, SPLIT);
    assert.equal(par.r.code, 2);
    assert.equal(one.r.code, 2);
    assert.deepEqual(stable(par.r.stdout), stable(one.r.stdout));
    assert.equal(par.report, one.report);
    assert.deepEqual(par.requests, []);
    const problems = (JSON.parse(par.r.stdout) as { problems: Array<{ line: number }> }).problems.map((p) => p.line);
    const splitLine = Number(SPLIT.exec(par.r.stderr)?.[1]);
    assert.ok(problems.some((l) => l < splitLine) && problems.some((l) => l >= splitLine), `problems on both sides of line ${splitLine}: ${problems.join(',')}`);
  });

  test('a broken quote after the split gives the same error and line as one pass', async () => {
    const dir = tempDir('msgr-par-');
    const path = join(dir, 'broken.csv');
    const rows = ['msisdn,name', ...Array.from({ length: 60 }, (_, i) => `${uk(i)},N${i}`)];
    rows[50] = `${uk(50)},"never closed`;
    writeFileSync(path, `${rows.join('\n')}\n`);
    const results: RunResult[] = [];
    for (const split of [true, false]) {
      results.push(await runInProcess(['send-bulk', path, ...MSG, '--journal', join(dir, `j${split}.jsonl`)], { env: env(server.url, split) }));
    }
    const [par, one] = results as [RunResult, RunResult];
    assert.equal(par.code, 2);
    assert.equal(par.stderr, one.stderr);
    assert.match(par.stderr, /line 51: a quoted field starts here and is never closed/);
  });

  test('--dry-run prints the same first request when duplicates of the first part open the second', async () => {
    const dir = tempDir('msgr-par-');
    const path = join(dir, 'dry.csv');
    const first = Array.from({ length: 20 }, (_, i) => `${uk(i)},A${i}`);
    const second = [...Array.from({ length: 10 }, (_, i) => `${uk(i)},again${i}`), ...Array.from({ length: 30 }, (_, i) => `${uk(100 + i)},B${i}`)];
    writeFileSync(path, `msisdn,name\n${[...first, ...second].join('\n')}\n`);
    const results: RunResult[] = [];
    for (const split of [true, false]) {
      results.push(await runInProcess(['send-bulk', path, ...MSG, '--dry-run', '--first-per-number', '--batch-size', '35', '-v'], { env: env(server.url, split) }));
    }
    const [par, one] = results as [RunResult, RunResult];
    assert.equal(par.code, 0, par.stderr);
    assert.match(par.stderr, SPLIT);
    assert.equal(par.stdout, one.stdout);
    const req = JSON.parse(par.stdout) as { recipients: Array<{ msisdn: string }> };
    assert.equal(req.recipients.length, 35);
    assert.equal(new Set(req.recipients.map((r) => r.msisdn)).size, 35);
  });

  test('stdin is spooled to a file and split like one', async () => {
    const rows = ['msisdn,name', ...Array.from({ length: 80 }, (_, i) => `${uk(i % 60)},N${i}`)];
    const dir = tempDir('msgr-par-');
    const results: Array<{ r: RunResult; req: ReturnType<typeof requests> }> = [];
    for (const split of [true, false]) {
      writeFileSync(record, '');
      const r = await runInProcess(['send-bulk', '-', ...MSG, '--journal', join(dir, `j${split}.jsonl`), '--batch-size', '9', '--first-per-number', '--json', '-v'], { env: env(server.url, split), input: `${rows.join('\n')}\n` });
      results.push({ r, req: requests(record) });
    }
    const [par, one] = results as [(typeof results)[0], (typeof results)[0]];
    assert.match(par.r.stderr, SPLIT);
    assert.equal(par.r.code, 0, par.r.stderr);
    assert.deepEqual(stable(par.r.stdout), stable(one.r.stdout));
    assert.deepEqual(par.req, one.req);
    assert.equal(par.req.flat().length, 60);
  });
});
