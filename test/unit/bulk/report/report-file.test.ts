// How a report reaches its path: written beside it under a name of msgr's and renamed over it
// once complete, so a run that fails or is stopped never leaves an empty or half report.
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { csvField, defuse, refuseReportOver, reportTempPath, ReportWriter } from '../../../../src/bulk/report/report-file.js';
import { tempDir } from '../../../support/cli.js';

const ROW = { line: 2, number: '+447400900001', outcome: 'accepted', status: 202, messageId: 'm1' } as const;

describe('refuseReportOver', () => {
  test('a report over any msgr journal is refused, naming its run (not only over the run\'s own journal); another .jsonl is not', () => {
    const dir = tempDir();
    const journal = join(dir, 'journal.r-old.jsonl');
    writeFileSync(journal, `${JSON.stringify({ type: 'run', version: 1, runId: 'r-old' })}\n{"type":"done","batch":0,"outcome":"accepted"}\n`);
    assert.throws(() => refuseReportOver(journal, []), /--report: \S+journal\.r-old\.jsonl is the journal of run r-old; writing the report there would overwrite it/);
    const other = join(dir, 'report.jsonl');
    writeFileSync(other, '{"line":2}\n');
    refuseReportOver(other, []);
    refuseReportOver(join(dir, 'new.jsonl'), []);
  });
});

describe('ReportWriter: the file', () => {
  test('until close, the rows go to <report>.msgr-<pid>.partial (0600) and the old report is untouched; close renames it over', () => {
    const dir = tempDir();
    const path = join(dir, 'r.csv');
    writeFileSync(path, 'old,report\n');
    const w = new ReportWriter(path, 4242);
    w.write(ROW);
    w.flush();
    const temp = join(dir, 'r.csv.msgr-4242.partial');
    assert.equal(reportTempPath(path, 4242), temp);
    assert.equal(readFileSync(path, 'utf8'), 'old,report\n');
    assert.equal(statSync(temp).mode & 0o777, 0o600);
    w.close();
    assert.deepEqual(readdirSync(dir), ['r.csv']);
    assert.match(readFileSync(path, 'utf8'), /^line,number,outcome,status,message_id,error,request_fields\n2,\+447400900001,accepted,202,m1,,msisdn\n$/);
    w.discard();
    assert.match(readFileSync(path, 'utf8'), /m1/, 'a discard after close removes nothing');
  });

  test('the report keeps the permissions of the file it replaces; a new one is the owner\'s alone (0600)', () => {
    const dir = tempDir();
    const shared = join(dir, 'shared.csv');
    writeFileSync(shared, 'old\n');
    chmodSync(shared, 0o640);
    new ReportWriter(shared, 5).close();
    assert.equal(statSync(shared).mode & 0o777, 0o640);
    const fresh = join(dir, 'fresh.csv');
    new ReportWriter(fresh, 5).close();
    assert.equal(statSync(fresh).mode & 0o777, 0o600);
  });

  test('a link planted at the temporary path is not followed (what it points to is untouched); a file left there by a killed run is replaced', () => {
    const dir = tempDir();
    const path = join(dir, 'r.csv');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, reportTempPath(path, 9));
    const w = new ReportWriter(path, 9);
    w.write(ROW);
    w.close();
    assert.equal(readFileSync(victim, 'utf8'), 'keep me\n');
    assert.match(readFileSync(path, 'utf8'), /m1/);
    assert.deepEqual(readdirSync(dir).sort(), ['r.csv', 'victim.txt']);
  });

  test('discard (the run failed or stopped) removes the temporary file and leaves the old report as it was', () => {
    const dir = tempDir();
    const path = join(dir, 'r.jsonl');
    writeFileSync(path, 'old\n');
    const w = new ReportWriter(path, 7);
    for (let i = 0; i < 5000; i++) w.write({ ...ROW, line: i + 2 });
    w.discard();
    w.close();
    assert.deepEqual(readdirSync(dir), ['r.jsonl']);
    assert.equal(readFileSync(path, 'utf8'), 'old\n');
  });

  test('a report through a symbolic link replaces the file it points to; a folder or a missing folder is refused at once', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'r.csv'), 'old\n');
    symlinkSync(join(dir, 'real', 'r.csv'), join(dir, 'link.csv'));
    const w = new ReportWriter(join(dir, 'link.csv'), 1);
    w.close();
    assert.match(readFileSync(join(dir, 'real', 'r.csv'), 'utf8'), /^line,number/);
    assert.deepEqual(readdirSync(join(dir, 'real')), ['r.csv']);
    mkdirSync(join(dir, 'folder.csv'));
    assert.throws(() => new ReportWriter(join(dir, 'folder.csv'), 1), /--report: \S+folder\.csv is a folder/);
    assert.throws(() => new ReportWriter(join(dir, 'nope', 'r.csv'), 1), /--report: cannot write \S+ \(there is no folder \S+nope\)/);
  });

  test('a link to a report not written yet is followed: the report is created where it points, the link stays', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync(join('real', 'new.csv'), join(dir, 'link.csv'));
    const w = new ReportWriter(join(dir, 'link.csv'), 1);
    w.write(ROW);
    w.close();
    assert.ok(lstatSync(join(dir, 'link.csv')).isSymbolicLink(), 'the link was replaced by a file');
    assert.match(readFileSync(join(dir, 'real', 'new.csv'), 'utf8'), /^line,number.*\n2,\+447400900001,accepted/s);
    assert.deepEqual(readdirSync(join(dir, 'real')), ['new.csv']);
    symlinkSync(join('gone', 'r.csv'), join(dir, 'astray.csv'));
    assert.throws(() => new ReportWriter(join(dir, 'astray.csv'), 1), /--report: cannot write \S+astray\.csv \(there is no folder \S+gone\)/);
  });
});

describe('report and responses', () => {
  test('CSV fields are quoted only when needed, quotes doubled', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
  });

  test('writes CSV and JSONL reports', () => {
    const dir = tempDir();
    const csv = new ReportWriter(join(dir, 'r.csv'), 4242);
    csv.write({ line: 2, number: '+447400900001', outcome: 'accepted', status: 202, messageId: 'm1' });
    csv.write({ line: 3, number: 'abc', outcome: 'invalid', error: '=cmd, "x"' });
    csv.close();
    assert.equal(readFileSync(join(dir, 'r.csv'), 'utf8'), 'line,number,outcome,status,message_id,error,request_fields\n2,+447400900001,accepted,202,m1,,msisdn\n3,abc,invalid,,,"\'=cmd, ""x""",\n');
    const jl = new ReportWriter(join(dir, 'r.jsonl'), 4242);
    jl.write({ line: 2, number: '+447400900001', outcome: 'in-doubt', error: 'timeout' });
    jl.close();
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'r.jsonl'), 'utf8')), { line: 2, number: '+447400900001', outcome: 'in-doubt', status: null, messageId: null, error: 'timeout', requestFields: ['msisdn'] });
    assert.throws(() => new ReportWriter(join(dir, 'r.txt'), 4242), /must end in .csv or .jsonl/);
  });

});

describe('report cells a spreadsheet would run', () => {
  test("formulas get a ' before them", () => {
    for (const cell of ['=1+1', '=HYPERLINK("http://x","y")', '@SUM(1+1)', '\t=1', '\r=1', '+cmd', "+1+cmd|' /C calc'!A0", '-1+1', '-A1', '+', '-', '+x', '+44 7911 123456 ext 2']) {
      assert.equal(defuse(cell), `'${cell}`, JSON.stringify(cell));
    }
  });

  test('phone numbers, valid or as written, and ordinary text stay as they are', () => {
    for (const cell of ['+447911123456', '+44 (0)7911 123456', '+44 7911-123.456', '+(44) 7911 123456', '-44 7911 123456', '+1 (555) 010/0100', '\u200e+44 7911 123456', '+44\u00a07911\u00a0123456', '447911123456', '', 'Ann', 'phone: "=1" is not a number', 'sbx_m_1']) {
      assert.equal(defuse(cell), cell, JSON.stringify(cell));
    }
  });
});
