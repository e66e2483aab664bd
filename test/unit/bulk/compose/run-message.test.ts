// The run's message as the stages use it: one shared text (parts once, --max-parts before the file
// is read) or a message per row (frames per grouping key), and the `{name}` warning.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageError } from '../../../../src/errors.js';
import { runMessage } from '../../../../src/bulk/compose/run-message.js';
import type { PersonalSpec } from '../../../../src/bulk/journal/records.js';

const SPEC: PersonalSpec = { render: true, textColumn: null, fromColumn: null, maxParts: null };
const request = (text: string): Record<string, unknown> => ({ accountReference: 'ACME01', channel: 'SMS', from: 'Acme', body: { text } });
const LONG = 'x'.repeat(161);

describe('runMessage', () => {
  test('one shared text: its parts once, one frame, no per-row plan', () => {
    const m = runMessage(request('Hello'), SPEC, '--text');
    assert.equal(m.personal, undefined);
    assert.deepEqual([m.textAnalysis?.encoding, m.textAnalysis?.parts], ['GSM-7', 1]);
    assert.equal(m.frameOf, undefined);
    assert.equal(m.firstFrame(undefined), m.frame);
    assert.equal(m.rowPlan(['msisdn'], 'f.csv'), undefined);
    assert.match(m.frame.prefix, /"text":"Hello"/);
  });

  test('a shared text over --max-parts stops the run; under it, or without the flag, it does not', () => {
    assert.throws(() => runMessage(request(LONG), { ...SPEC, maxParts: 1 }, '--text-file'), (e: unknown) => e instanceof UsageError && /the text takes 2 SMS parts, more than --max-parts 1; nothing was sent/.test(e.message));
    assert.equal(runMessage(request(LONG), { ...SPEC, maxParts: 2 }, '--text').textAnalysis?.parts, 2);
    assert.equal(runMessage(request(LONG), undefined, '--text').textAnalysis?.parts, 2);
  });

  test('placeholders: a message per row, each grouping key its own frame; --max-parts is left to each row', () => {
    const m = runMessage(request(`Hi {{name}} ${LONG}`), { ...SPEC, maxParts: 1 }, '--text');
    assert.ok(m.personal !== undefined);
    assert.equal(m.textAnalysis, undefined);
    const key = JSON.stringify(['Hi Ann']);
    assert.match(m.frameOf?.(key).prefix ?? '', /"text":"Hi Ann"/);
    assert.deepEqual(m.firstFrame(key), m.frameOf?.(key));
    assert.ok(m.rowPlan(['msisdn', 'name'], 'f.csv') !== undefined);
    // Rendering off: the same text is one shared message, sent as written.
    assert.equal(runMessage(request('Hi {{name}}'), { ...SPEC, render: false }, '--text').personal, undefined);
  });

  test('{column} in single braces is warned about, naming the flag the text came from', () => {
    const m = runMessage(request('Hi {Name}, {x} and {{name}}'), SPEC, '--text-file');
    assert.deepEqual(m.singleBraceWarnings(['msisdn', 'name']), ["--text-file: {Name} is sent as written; write {{Name}} to put each row's Name in the text"]);
    assert.deepEqual(runMessage(request('Hi {name}'), { ...SPEC, render: false }, '--text').singleBraceWarnings(['name']), []);
    assert.deepEqual(runMessage(request('Hi {name}'), undefined, '--text').singleBraceWarnings(['name']), []);
  });
});
