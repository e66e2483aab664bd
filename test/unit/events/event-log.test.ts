import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { EventLog } from '../../../src/events/event-log.js';
import { testProcess } from '../../support/fake-context.js';

const proc = { pid: testProcess.pid, now: () => new Date(), isProcessAlive: testProcess.isProcessAlive };
const tmp = (): string => mkdtempSync(join(tmpdir(), 'msgr-eventlog-'));

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

  test('an unfinished last line (a write a kill cut short) is cut off; what is there is read back at open', async () => {
    const path = join(tmp(), 'events.jsonl');
    writeFileSync(path, '{"key":"a"}\n{"key":"b"}\n{"key":"c","bo');
    const seen: string[] = [];
    const { log, tornBytes } = await EventLog.open(path, proc, { command: 'test', onExisting: (l) => seen.push(l) });
    assert.equal(tornBytes, '{"key":"c","bo'.length);
    assert.deepEqual(seen, ['{"key":"a"}', '{"key":"b"}']);
    await log.append('{"key":"d"}\n');
    await log.close();
    assert.equal(readFileSync(path, 'utf8'), '{"key":"a"}\n{"key":"b"}\n{"key":"d"}\n');
  });

  test('a file that cannot be opened is a usage error naming it', async () => {
    const dir = tmp();
    await assert.rejects(EventLog.open(dir, proc, { command: 'test' }), (e: unknown) => e instanceof UsageError && e.message.includes(dir));
  });
});
