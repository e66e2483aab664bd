// The preflight workers' memory (src/bulk/preflight/parallel.ts): the old generation is sized for the
// messages the grouping holds open, a pass that outgrows it fails the worker without taking the
// process down (the caller then runs the pass on its own thread), and nothing of a worker's
// result stays reachable from the run's signal once the preflight is over.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { GROUP_WINDOW } from '../../../../src/bulk/compose/grouping.js';
import { runParallelPreflight, runWholeInWorker, sampledLineBytes, workerOldMb } from '../../../../src/bulk/preflight/parallel.js';
import { messageColumnNames, type MessageSource } from '../../../../src/bulk/compose/personalise.js';
import { detectFormat, type CsvFormat } from '../../../../src/csv/reader.js';
import { tempDir } from '../../../support/cli.js';

const dir = tempDir('msgr-worker-heap-');
after(() => rmSync(dir, { recursive: true, force: true }));

const PER_ROW: MessageSource = { text: undefined, textFlag: '--text', channel: 'SMS', spec: { render: true, textColumn: 'message', fromColumn: null, maxParts: null } };

describe("the preflight workers' memory", () => {
  test('grows with the line length and the text, from 64 MB', () => {
    const format = (lineBytes: number): CsvFormat => ({ encoding: 'utf8', firstByte: 0, firstLine: 1, delimiter: ',', detected: true, lineBytes });
    assert.equal(workerOldMb({ format: format(33), message: undefined }), 64 + 1);
    // 10,000 open messages of ~3 KB, counted twice (UTF-16): 58 MB more.
    assert.equal(workerOldMb({ format: format(3000), message: PER_ROW }), 64 + Math.ceil((2 * GROUP_WINDOW * 3000) / 2 ** 20));
    assert.equal(workerOldMb({ format: format(33), message: { ...PER_ROW, text: 'x'.repeat(967) } }), 64 + Math.ceil((2 * GROUP_WINDOW * 1000) / 2 ** 20));
  });

  test('is sized for the longest lines of three samples: a file of short rows on top and long ones below', async () => {
    const short = Array.from({ length: 3000 }, (_, i) => `+4479111${String(i).padStart(5, '0')},hi`);
    const long = Array.from({ length: 2000 }, (_, i) => `+4479112${String(i).padStart(5, '0')},text ${i} ${'x'.repeat(2000)}`);
    const content = `msisdn,message\n${[...short, ...long].join('\n')}\n`;
    const path = join(dir, 'short-then-long.csv');
    writeFileSync(path, content);
    const format = await detectFormat(path, {});
    assert.ok(format.lineBytes < 30, `the first 64 KiB: ${format.lineBytes} bytes a line`);
    const sampled = await sampledLineBytes(path, Buffer.byteLength(content), format);
    assert.ok(sampled > 1900 && sampled < 2100, `sampled: ${sampled} bytes a line`);
    // A line longer than a sample counts as at least the sample.
    const one = join(dir, 'one-long-line.csv');
    writeFileSync(one, `msisdn,message\n+447911100000,${'y'.repeat(200_000)}\n`);
    assert.ok((await sampledLineBytes(one, 200_030, await detectFormat(one, {}))) >= 64 * 1024);
  });

  test('a pass that outgrows it fails the worker (undefined), and one with room gives the figures', async () => {
    // 12,000 different texts of ~3 KB: the grouping holds 10,000 of them open at once (~30 MB).
    const rows = Array.from({ length: 12_000 }, (_, i) => `+4479111${String(i).padStart(5, '0')},text ${i} ${'x'.repeat(3000)}`);
    const content = `msisdn,message\n${rows.join('\n')}\n`;
    const path = join(dir, 'long.csv');
    writeFileSync(path, content);
    const o = {
      path,
      fileLabel: 'long.csv',
      format: await detectFormat(path, {}),
      columns: { messageColumns: messageColumnNames(PER_ROW) },
      country: undefined,
      repeats: 'first' as const,
      batchSize: 50,
      fileBytes: Buffer.byteLength(content),
      message: PER_ROW,
      keepFirst: 0,
    };
    const failures: string[] = [];
    assert.equal(await runWholeInWorker({ ...o, oldGenerationMb: 16, onFailure: (why) => failures.push(why) }), undefined);
    // Why, for --verbose: the caller's pass that follows takes as long again.
    assert.equal(failures.length, 1);
    assert.match(failures[0] ?? '', /memory limit/);
    const pre = await runWholeInWorker({ ...o, onFailure: (why) => failures.push(why) });
    assert.equal(failures.length, 1, 'no failure said when the worker had room');
    assert.ok(pre !== undefined, 'the worker had room');
    assert.equal(pre.rows, 12_000);
    assert.equal(pre.toSend, 12_000);
    assert.equal(pre.requests, 12_000);
  });

  test('no listener is left on the run\'s signal, which would keep each part\'s set of numbers for the whole send', async () => {
    const rows = Array.from({ length: 4000 }, (_, i) => `+4479111${String(i).padStart(5, '0')},N${i % 9}`);
    const content = `msisdn,name\n${rows.join('\n')}\n`;
    const path = join(dir, 'names.csv');
    writeFileSync(path, content);
    const signal = new AbortController().signal;
    const o = { path, fileLabel: 'names.csv', format: await detectFormat(path, {}), country: undefined, repeats: 'first' as const, batchSize: 50, fileBytes: Buffer.byteLength(content), signal };
    const split = await runParallelPreflight({ ...o, columns: {}, minBytes: 0 });
    assert.ok(split !== undefined, 'the file was split');
    assert.equal(split.toSend, 4000);
    const hi: MessageSource = { text: 'Hi {{name}}', textFlag: '--text', channel: 'SMS', spec: { render: true, textColumn: null, fromColumn: null, maxParts: null } };
    const whole = await runWholeInWorker({ ...o, columns: { messageColumns: messageColumnNames(hi) }, message: hi, keepFirst: 0 });
    assert.ok(whole !== undefined, 'the worker ran the pass');
    assert.equal(whole.requests, 9 * Math.ceil(4000 / 9 / 50));
    assert.equal(getEventListeners(signal, 'abort').length, 0);
  });

  test('a split preflight whose worker fails says why (for --verbose), and leaves the pass to the caller', async () => {
    const rows = Array.from({ length: 4000 }, (_, i) => `+4479111${String(i).padStart(5, '0')},N${i % 9}`);
    const content = `msisdn,name\n${rows.join('\n')}\n`;
    const path = join(dir, 'split-fails.csv');
    writeFileSync(path, content);
    const failures: string[] = [];
    const o = { path, fileLabel: 'split-fails.csv', format: await detectFormat(path, {}), columns: {}, country: undefined, repeats: 'first' as const, batchSize: 50, fileBytes: Buffer.byteLength(content), minBytes: 0 };
    // A spool the workers cannot write, not a tiny heap: a heap too small for V8 to start the
    // worker at all (1 MB) aborts the whole process on Node 24, where a test cannot catch it.
    const unwritable = join(dir, 'no-such-folder', 'run.spool');
    assert.equal(await runParallelPreflight({ ...o, spoolPath: unwritable, onFailure: (why) => failures.push(why) }), undefined);
    assert.equal(failures.length, 1, failures.join('; '));
    assert.match(failures[0] ?? '', /ENOENT/);
    assert.ok((await runParallelPreflight({ ...o, onFailure: (why) => failures.push(why) })) !== undefined, 'with a spool it can write, the split ran');
    assert.equal(failures.length, 1, 'no failure said when the workers succeeded');
  });

  test('a stop that came before the workers started (while the split point was sought) starts none: no pass to wait for', async () => {
    const rows = Array.from({ length: 4000 }, (_, i) => `+4479111${String(i).padStart(5, '0')},N${i % 9}`);
    const content = `msisdn,name\n${rows.join('\n')}\n`;
    const path = join(dir, 'stopped.csv');
    writeFileSync(path, content);
    const stop = new AbortController();
    stop.abort('SIGINT');
    const o = { path, fileLabel: 'stopped.csv', format: await detectFormat(path, {}), country: undefined, repeats: 'first' as const, batchSize: 50, fileBytes: Buffer.byteLength(content), signal: stop.signal };
    assert.equal(await runParallelPreflight({ ...o, columns: {}, minBytes: 0 }), undefined, 'no split preflight ran');
    const hi: MessageSource = { text: 'Hi {{name}}', textFlag: '--text', channel: 'SMS', spec: { render: true, textColumn: null, fromColumn: null, maxParts: null } };
    const failures: string[] = [];
    const whole = await runWholeInWorker({ ...o, columns: { messageColumns: messageColumnNames(hi) }, message: hi, keepFirst: 0, onFailure: (why) => failures.push(why) });
    assert.equal(whole, undefined, 'no worker ran the pass');
    assert.deepEqual(failures, [], 'a stop is not a worker failure');
    assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
  });
});
