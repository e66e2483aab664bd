// Commands run in-process: argv through the real Commander wiring into typed options (the runF
// seam, as gh's commands take one), and send-bulk run with a Context of the test's (a fake API:
// test/support/fake-api.ts), its error returned rather than thrown.
import assert from 'node:assert/strict';
import { Command } from 'commander';
import type { Context } from '../../src/context.js';
import { registerSendBulk } from '../../src/commands/send-bulk/index.js';
import type { BulkOptions } from '../../src/commands/send-bulk/options.js';
import { MsgrError } from '../../src/errors.js';
import { fakeContext } from './fake-context.js';

/** `msgr send-bulk ARGV` parsed as the CLI parses it; the run is not called. */
export async function bulkOptions(argv: string[]): Promise<BulkOptions> {
  const program = new Command('msgr').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let got: BulkOptions | undefined;
  registerSendBulk(program, fakeContext(), (opts) => {
    got = opts;
    return Promise.resolve();
  });
  await program.parseAsync(['send-bulk', ...argv], { from: 'user' });
  assert.ok(got !== undefined, 'the run was not called');
  return got;
}

/** `msgr send-bulk ARGV` run in-process: the error it ends with (its exit code, its hint), or undefined. */
export async function sendBulk(ctx: Context, argv: string[]): Promise<MsgrError | undefined> {
  const { runSendBulk } = await import('../../src/commands/send-bulk/run.js');
  try {
    await runSendBulk(ctx, await bulkOptions(argv));
    return undefined;
  } catch (err) {
    if (err instanceof MsgrError) return err;
    throw err;
  }
}
