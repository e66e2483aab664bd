// argv → DoctorOptions through the real Commander wiring, with the run replaced (the runF seam).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Command, CommanderError } from 'commander';
import { registerDoctor } from '../../../../src/commands/doctor/index.js';
import type { DoctorOptions } from '../../../../src/commands/doctor/options.js';
import { UsageError } from '../../../../src/errors.js';
import { fakeContext } from '../../../support/fake-context.js';

async function parse(argv: string[]): Promise<DoctorOptions> {
  const program = new Command('msgr').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let got: DoctorOptions | undefined;
  registerDoctor(program, fakeContext(), (opts) => {
    got = opts;
    return Promise.resolve();
  });
  await program.parseAsync(['doctor', ...argv], { from: 'user' });
  assert.ok(got !== undefined, 'the run was not called');
  return got;
}

describe('doctor: argv → options', () => {
  test('the connection options send takes, resolved the same way', async () => {
    const o = await parse(['-p', 'prod', '--base-url', 'https://api.example.com', '--ca-file', 'corp.pem', '--timeout', '5', '--json']);
    assert.deepEqual([o.profile, o.baseUrl, o.caFile, o.timeout, o.json, o.sandbox], ['prod', 'https://api.example.com', 'corp.pem', 5000, true, undefined]);
    assert.equal((await parse(['--sandbox'])).sandbox, true);
  });

  test('nothing to confirm: doctor has no --yes; a bad --timeout is a usage error naming it', async () => {
    await assert.rejects(parse(['--yes']), (err: unknown) => err instanceof CommanderError && /unknown option '--yes'/.test(err.message));
    await assert.rejects(parse(['--timeout', 'soon']), (err: unknown) => err instanceof UsageError && /^--timeout: "soon"/.test(err.message));
  });
});
