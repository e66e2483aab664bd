// What --preview and --dry-run print: for people on a terminal, whole into a pipe, or the --json
// document; and the --sample-to numbers, checked before the file is read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { printDryRun, printPreview, type TrialOutput } from '../../../../src/bulk/display/preview.js';
import type { Summary } from '../../../../src/bulk/display/summary.js';

const summary = { runId: null, journal: null, dryRun: true, toSend: 5 } as unknown as Summary;

function output(o: { json?: boolean; tty?: boolean } = {}): TrialOutput & { out: () => string; info: string[] } {
  let out = '';
  const info: string[] = [];
  return {
    stdout: { write: (s: string) => ((out += s), true), isTTY: o.tty === true },
    ui: { info: (line: string) => void info.push(line) },
    json: o.json === true,
    summary,
    out: () => out,
    info,
  };
}

const FRAME = { prefix: '{"from":"Acme","body":{"text":"Hi"},"recipients":[', suffix: ']}' };
const BATCH = ['+447400900001', '+447400900002', '+447400900003', '+447400900004', '+447400900005'].map((msisdn) => JSON.stringify({ msisdn }));

describe('printDryRun', () => {
  test('into a pipe: the whole first request; on a terminal: its first three recipients and a count', () => {
    const pipe = output();
    printDryRun(pipe, FRAME, BATCH, { toSend: 5, requests: 1 });
    assert.equal((JSON.parse(pipe.out()) as { recipients: unknown[] }).recipients.length, 5);
    assert.deepEqual(pipe.info, ['dry run: 5 recipients in 1 request would be sent; nothing was sent']);
    const tty = output({ tty: true });
    printDryRun(tty, FRAME, BATCH, { toSend: 5, requests: 1 });
    assert.match(tty.out(), /"\+447400900003"\n {4}}\n {4}… and 2 more recipients in this request\n {2}]/);
    assert.doesNotMatch(tty.out(), /900004/);
  });

  test('--json: the summary with the first request, null when nothing is to be sent', () => {
    const doc = output({ json: true });
    printDryRun(doc, FRAME, BATCH.slice(0, 1), { toSend: 1, requests: 1 });
    assert.deepEqual(JSON.parse(doc.out()), { ...summary, firstRequest: { from: 'Acme', body: { text: 'Hi' }, recipients: [{ msisdn: '+447400900001' }] }, exitCode: 0 });
    const none = output({ json: true });
    printDryRun(none, FRAME, [], { toSend: 0, requests: 0 });
    assert.equal((JSON.parse(none.out()) as { firstRequest: unknown }).firstRequest, null);
    const quiet = output();
    printDryRun(quiet, FRAME, [], { toSend: 0, requests: 0 });
    assert.equal(quiet.out(), '');
  });
});

describe('printPreview', () => {
  const message = { from: 'Acme', body: { text: 'Hi' } };
  const rows = [{ line: 2, e164: '+447400900001', recipient: JSON.stringify({ msisdn: '+447400900001' }), key: undefined }];

  test('for people: each message, and how many of the messages to send were shown', () => {
    const o = output();
    printPreview(o, message, rows, 5);
    assert.equal(o.out(), 'line 2 → +447400900001 from Acme (GSM-7, 1 SMS part)\n  │ Hi\n');
    assert.deepEqual(o.info, ['preview: the first 1 of 5 messages; nothing was sent']);
  });

  test('--json: the summary with the entries', () => {
    const o = output({ json: true });
    printPreview(o, message, rows, 1);
    const doc = JSON.parse(o.out()) as { dryRun: boolean; preview: Array<{ line: number; text: string }> };
    assert.equal(doc.dryRun, true);
    assert.deepEqual(doc.preview.map((e) => [e.line, e.text]), [[2, 'Hi']]);
    assert.deepEqual(o.info, ['preview: the first 1 of 1 message; nothing was sent']);
  });
});

describe('previews and samples', () => {
  const message = { accountReference: 'A1', channel: 'SMS', from: 'Acme', body: { text: 'Hi {{name}}' } };
  const row = { line: 7, e164: '+447400900001', recipient: '{"msisdn":"+447400900001","variables":{"city":"Leeds"}}', key: '["Hi Ann ’",null]'.replace(',null', '') };

  test('a preview entry is the row as it will be sent', async () => {
    const { previewEntries, formatPreview } = await import('../../../../src/bulk/display/preview.js');
    const [e] = previewEntries(message, [row]);
    assert.deepEqual(e, { line: 7, msisdn: '+447400900001', from: 'Acme', text: 'Hi Ann ’', templateId: null, recipient: { variables: { city: 'Leeds' } }, encoding: 'UCS-2', parts: 1 });
    assert.equal(formatPreview(previewEntries(message, [row])), 'line 7 → +447400900001 from Acme (UCS-2, 1 SMS part)\n  │ Hi Ann ’\n  {"variables":{"city":"Leeds"}}');
  });

  test('a short view of a request shows its first recipients and how many more', async () => {
    const { shortRequestView } = await import('../../../../src/bulk/display/preview.js');
    const request = { ...message, recipients: Array.from({ length: 5 }, (_, i) => ({ msisdn: `+4474009000${i}` })), metaData: { a: '1' } };
    const view = shortRequestView(request, 2);
    assert.match(view, /"msisdn": "\+44740090001"\n {4}\}\n {4}… and 3 more recipients in this request\n {2}\],\n {2}"metaData"/);
    assert.doesNotMatch(view, /\+44740090002/);
    assert.equal(shortRequestView({ ...message, recipients: [{ msisdn: '+1' }] }), JSON.stringify({ ...message, recipients: [{ msisdn: '+1' }] }, null, 2));
  });

  test('a sample is the row\'s request with the sample numbers as recipients, variables kept', async () => {
    const { sampleBody } = await import('../../../../src/bulk/send-pass/samples.js');
    const body = JSON.parse(sampleBody(message, row, ['+447400900998', '+447400900999'])) as { body: { text: string }; recipients: unknown[] };
    assert.equal(body.body.text, 'Hi Ann ’');
    assert.deepEqual(body.recipients, [
      { msisdn: '+447400900998', variables: { city: 'Leeds' } },
      { msisdn: '+447400900999', variables: { city: 'Leeds' } },
    ]);
  });
});
