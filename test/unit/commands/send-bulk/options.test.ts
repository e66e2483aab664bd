// argv → BulkOptions through the real Commander wiring, with the run replaced (the runF seam).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageError } from '../../../../src/errors.js';
import { bulkOptions as parse } from '../../../support/in-process.js';

async function usageError(argv: string[]): Promise<string> {
  try {
    await parse(argv);
  } catch (err) {
    assert.ok(err instanceof UsageError, `not a UsageError: ${String(err)}`);
    return err.message;
  }
  assert.fail('no error');
}

describe('send-bulk: argv → options', () => {
  test('the file and defaults: booleans false, concurrency 4, batch size left to the run', async () => {
    const o = await parse(['list.csv', '--from', 'Acme', '--text', 'Hi']);
    assert.equal(o.file, 'list.csv');
    assert.equal(o.from, 'Acme');
    assert.equal(o.text, 'Hi');
    assert.equal(o.concurrency, 4);
    assert.equal(o.batchSize, undefined);
    assert.equal(o.timeoutMs, 30_000);
    for (const flag of ['dryRun', 'resume', 'restart', 'resendInDoubt', 'skipInvalid', 'allowDuplicates', 'sandbox', 'json', 'quiet', 'verbose', 'yes'] as const) {
      assert.equal(o[flag], false, flag);
    }
  });

  test('typed values: numbers, a rate, column lists, a delimiter and an encoding', async () => {
    const o = await parse(['-', '--batch-size', '500', '--concurrency', '8', '--rate', '300/m', '--var-columns', 'name, city', '--meta-columns', '', '--delimiter', 'tab', '--encoding', 'latin1', '--timeout', '5']);
    assert.equal(o.file, '-');
    assert.equal(o.batchSize, 500);
    assert.equal(o.concurrency, 8);
    assert.equal(o.rate?.text, '300/m');
    assert.equal(o.rate?.perMs, 300 / 60_000);
    assert.deepEqual(o.varColumns, ['name', 'city']);
    assert.deepEqual(o.metaColumns, []);
    assert.equal(o.delimiter, '\t');
    assert.equal(o.encoding, 'latin1');
    assert.equal(o.timeoutMs, 5_000);
  });

  test('--resume --journal needs no file', async () => {
    const o = await parse(['--resume', '--journal', 'run.jsonl', '--resend-in-doubt']);
    assert.equal(o.file, undefined);
    assert.equal(o.resume, true);
    assert.equal(o.resendInDoubt, true);
    assert.equal(o.journal, 'run.jsonl');
  });

  test('values out of range name the flag', async () => {
    assert.equal(await usageError(['a.csv', '--batch-size', '0']), '--batch-size: "0" is not a whole number from 1 to 10,000');
    assert.equal(await usageError(['a.csv', '--concurrency', '65']), '--concurrency: "65" is not a whole number from 1 to 64');
    assert.equal(await usageError(['a.csv', '--rate', '10/fortnight']), '--rate: "10/fortnight" is not a rate');
    assert.equal(await usageError(['a.csv', '--encoding', 'ebcdic']), '--encoding: "ebcdic" is not supported');
    assert.equal(await usageError(['a.csv', '--delimiter', ';;']), '--delimiter: ";;" is not a delimiter');
  });

  test('flags that contradict each other', async () => {
    assert.equal(await usageError(['a.csv', '--resume', '--restart']), '--resume and --restart cannot be used together');
    assert.equal(await usageError(['a.csv', '--resend-in-doubt']), '--resend-in-doubt only makes sense with --resume or --restart');
    assert.equal(await usageError(['a.csv', '--skip-in-doubt']), '--skip-in-doubt only makes sense with --restart');
    assert.equal(await usageError(['a.csv', '--restart', '--skip-in-doubt', '--resend-in-doubt']), '--skip-in-doubt and --resend-in-doubt cannot be used together');
    assert.equal(await usageError(['a.csv', '--resume', '--dry-run']), '--dry-run cannot be used with --resume');
    assert.equal(await usageError(['a.csv', '--text', 'a', '--text-file', 'b.txt']), '--text and --text-file cannot be used together');
    assert.equal(await usageError(['-', '--api-key-stdin']), '--api-key-stdin cannot be used when the CSV comes from stdin');
    assert.equal(await usageError(['a.csv', '-q', '-v']), '--quiet and --verbose cannot be used together');
  });

  test('no file is a usage error with an example', async () => {
    assert.equal(await usageError(['--from', 'Acme']), 'send-bulk needs a CSV file (or - for stdin)');
  });

  test('--sample-to with no number in it (an empty shell variable, a lone comma) is refused, not a sample sent to no one', async () => {
    for (const given of ['', ' , ']) {
      assert.equal(await usageError(['list.csv', '--text', 'Hi', '--sample-to', given]), '--sample-to: no number given');
    }
    assert.deepEqual((await parse(['list.csv', '--text', 'Hi', '--sample-to', '+447400900123,'])).sampleTo, ['+447400900123']);
  });
});
