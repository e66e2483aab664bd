// A run journal's header for tests of the engine (src/bulk/journal/records.ts RunHeader): a run of
// one shared SMS text in batches of 2, each field overridable (the shape field by field).
import type { RunHeader, RunShape } from '../../src/bulk/journal/records.js';

export function runHeader(over: Partial<Omit<RunHeader, 'shape'>> & { readonly shape?: Partial<RunShape> } = {}): RunHeader {
  const { shape, ...rest } = over;
  return {
    type: 'run',
    version: 1,
    runId: 'r1',
    createdAt: '2026-01-01T00:00:00.000Z',
    msgr: '0.0.0',
    input: { path: '/x.csv', stdin: false, size: 1, mtimeMs: 1, quickHash: 'q', hash: 'h' },
    shape: { batchSize: 2, encoding: 'utf8', delimiter: ',', msisdnColumn: 'msisdn', varColumns: [], metaColumns: [], defaultCountry: null, allowDuplicates: false, skipInvalid: false, exclude: null, ...shape },
    message: { accountReference: 'A', channel: 'SMS', from: 'X', body: { text: 'hi' } },
    totals: { rows: 8, toSend: 8, requests: 4 },
    ...rest,
  };
}
