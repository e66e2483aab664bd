import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { EventLog, type Reopened } from '../../../src/events/event-log.js';
import { testProcess } from '../../support/fake-context.js';
import { tempDir } from '../../support/cli.js';

const proc = { pid: testProcess.pid, now: () => new Date(), isProcessAlive: testProcess.isProcessAlive };
const tmp = (): string => tempDir('msgr-eventlog-');

describe('the events file', () => {
  test('appends resolve once on disk; appends made together share a flush; 0600; one listener per file', async () => {
    const path = join(tmp(), 'sub', 'events.jsonl');
    const { log, tornBytes } = await EventLog.open(path, proc, { command: 'test' });
    assert.equal(tornBytes, 0);
    let flushes = 0;
    log.onFlushed = () => flushes++;
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(`{"n":${i}}\n`)));
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 50);
    assert.ok(flushes < 50, `${flushes} flushes for 50 appends made in one turn`);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    await assert.rejects(EventLog.open(path, proc, { command: 'second' }), (e: unknown) => e instanceof UsageError && /another msgr listen is writing/.test(e.message));
    await log.close();
    assert.equal(existsSync(`${path}.lock`), false);
    await assert.rejects(log.append('x\n'), /stopping/);
  });

  test('an unfinished last line (a write a kill cut short) is cut off and kept in <file>.torn; what is there is read back at open', async () => {
    const path = join(tmp(), 'events.jsonl');
    writeFileSync(path, '{"key":"a"}\n{"key":"b"}\n{"key":"c","bo');
    const seen: string[] = [];
    const { log, tornBytes, tornKind, tornAside } = await EventLog.open(path, proc, { command: 'test', onExisting: (l) => seen.push(l) });
    assert.equal(tornBytes, '{"key":"c","bo'.length);
    assert.deepEqual([tornKind, tornAside], ['unfinished', `${path}.torn`]);
    assert.equal(readFileSync(`${path}.torn`, 'utf8'), '{"key":"c","bo\n');
    assert.equal(statSync(`${path}.torn`).mode & 0o777, 0o600);
    assert.deepEqual(seen, ['{"key":"a"}', '{"key":"b"}']);
    await log.append('{"key":"d"}\n');
    await log.close();
    assert.equal(readFileSync(path, 'utf8'), '{"key":"a"}\n{"key":"b"}\n{"key":"d"}\n');
  });

  test('a last line that is JSON but no record of msgr\'s, without its newline, is kept aside byte for byte and named as such, not as unfinished', async () => {
    const path = join(tmp(), 'events.jsonl');
    const last = '{"id":"x","receivedAt":"2026-01-01T00:00:00.000Z","body":"a"}';
    writeFileSync(path, `{"key":"a"}\n${last}`);
    writeFileSync(`${path}.torn`, 'kept from before\n');
    const { log, tornBytes, tornKind, tornAside, mended } = await EventLog.open(path, proc, { command: 'test' });
    assert.deepEqual([tornBytes, tornKind, tornAside, mended], [last.length, 'json', `${path}.torn`, false]);
    assert.equal(readFileSync(`${path}.torn`, 'utf8'), `kept from before\n${last}\n`, 'added to what was aside already');
    await log.append('{"key":"c"}\n');
    await log.close();
    assert.equal(readFileSync(path, 'utf8'), '{"key":"a"}\n{"key":"c"}\n');
  });

  test('a last line that is a whole record but for its newline is kept, its newline added; the file made 0600', async () => {
    const path = join(tmp(), 'events.jsonl');
    const last = '{"v":1,"id":"ev_x_1","receivedAt":"2030-01-01T00:00:00.000Z","key":"id:b","method":"POST","path":"/","headers":{}}';
    writeFileSync(path, `{"key":"a"}\n${last}`, { mode: 0o644 });
    chmodSync(path, 0o644);
    const seen: string[] = [];
    const { log, tornBytes, mended, tightened } = await EventLog.open(path, proc, { command: 'test', onExisting: (l) => seen.push(l) });
    assert.deepEqual([tornBytes, mended], [0, true]);
    assert.equal(seen[1], last);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.match(tightened.changed[0] ?? '', /was 0644, now 0600/);
    await log.append('{"key":"c"}\n');
    await log.close();
    assert.equal(readFileSync(path, 'utf8'), `{"key":"a"}\n${last}\n{"key":"c"}\n`);
  });

  test('moved, removed, cut short or replaced under it: the next flush is in the file at the path before it resolves; reopen() (SIGHUP) opens it at once', async () => {
    const dir = tmp();
    const path = join(dir, 'events.jsonl');
    const { log } = await EventLog.open(path, proc, { command: 'test' });
    const seen: Reopened[] = [];
    log.onReopened = (r) => seen.push(r);
    await log.append('{"n":1}\n');
    renameSync(path, `${path}.1`);
    await log.append('{"n":2}\n');
    assert.equal(readFileSync(path, 'utf8'), '{"n":2}\n', 'the flush after the move is at the path');
    assert.equal(readFileSync(`${path}.1`, 'utf8'), '{"n":1}\n{"n":2}\n', 'and in the moved file too (written before the move was seen)');
    rmSync(path);
    await log.append('{"n":3}\n');
    assert.equal(readFileSync(path, 'utf8'), '{"n":3}\n');
    // copytruncate: written at the new end, never past it (a run of zero bytes).
    truncateSync(path, 0);
    await log.append('{"n":4}\n');
    assert.equal(readFileSync(path, 'utf8'), '{"n":4}\n');
    // Replaced by a file of someone else's without a final newline: one is written first.
    writeFileSync(`${path}.new`, '{"n":"theirs"}');
    renameSync(`${path}.new`, path);
    log.reopen();
    await new Promise((r) => setTimeout(r, 50));
    await log.append('{"n":5}\n');
    assert.equal(readFileSync(path, 'utf8'), '{"n":"theirs"}\n{"n":5}\n');
    await log.close();
    assert.deepEqual(seen.map((r) => r.why), ['moved', 'removed', 'truncated', 'signal'], 'mv is a move, rm a removal');
    assert.equal(seen[3]?.same, false);
  });

  test('a file that cannot be opened is a usage error naming it', async () => {
    const dir = tmp();
    await assert.rejects(EventLog.open(dir, proc, { command: 'test' }), (e: unknown) => e instanceof UsageError && e.message.includes(dir));
  });
});
