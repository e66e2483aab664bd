import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExitCode, PartialError, RejectedError, UsageError } from '../../../src/errors.js';
import { readFileSync } from 'node:fs';
import { ISSUES_URL, reportError } from '../../../src/output/report-error.js';
import { fakeContext } from '../../support/fake-context.js';

describe('one JSON error shape', () => {
  test('a usage error: message, hint (null when none) and the class exit code', () => {
    const ctx = fakeContext();
    assert.equal(reportError(ctx, new UsageError('--to: bad'), { json: true, verbose: false }), 2);
    assert.deepEqual(JSON.parse(ctx.out()), { error: { message: '--to: bad', hint: null, exitCode: 2 } });
  });

  test('an HTTP error carries the status and the parsed body', () => {
    const ctx = fakeContext();
    reportError(ctx, new RejectedError('rejected', { hint: 'fix it', status: 422, body: { title: 'x' } }), { json: true, verbose: false });
    assert.deepEqual(JSON.parse(ctx.out()), { error: { message: 'rejected', hint: 'fix it', exitCode: 4, status: 422, body: { title: 'x' } } });
  });

  test('a summary keeps exitCode at its top level, taken from the error class', () => {
    const ctx = fakeContext();
    reportError(ctx, new PartialError('some rows', { jsonFor: (exitCode) => ({ accepted: 1, exitCode }) }), { json: true, verbose: false });
    assert.deepEqual(JSON.parse(ctx.out()), { accepted: 1, exitCode: ExitCode.PARTIAL });
  });

  test('a bug: exit 1, the hint says where to report it', () => {
    const ctx = fakeContext();
    assert.equal(reportError(ctx, new Error('oops'), { json: true, verbose: false }), 1);
    const doc = JSON.parse(ctx.out()) as { error: { hint: string; exitCode: number } };
    assert.equal(doc.error.exitCode, 1);
    assert.match(doc.error.hint, /https:\/\/github\.com\/msgr-cli\/msgr\/issues/);
    assert.match(ctx.err(), /please report it at https:\/\/github\.com\/msgr-cli\/msgr\/issues/);
  });

  test('the report address is package.json\'s bugs URL', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { bugs: { url: string } };
    assert.equal(ISSUES_URL, pkg.bugs.url);
  });
});
