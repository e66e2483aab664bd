// argv → SendOptions through the real Commander wiring, with the run replaced (the runF seam).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Command } from 'commander';
import { UsageError } from '../../../../src/errors.js';
import { registerSend } from '../../../../src/commands/send/index.js';
import type { SendOptions } from '../../../../src/commands/send/options.js';
import { fakeContext } from '../../../support/fake-context.js';

async function parse(argv: string[]): Promise<SendOptions> {
  const program = new Command('msgr').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let got: SendOptions | undefined;
  registerSend(program, fakeContext(), (opts) => {
    got = opts;
    return Promise.resolve();
  });
  await program.parseAsync(['send', ...argv], { from: 'user' });
  assert.ok(got !== undefined, 'the run was not called');
  return got;
}

async function usageError(argv: string[]): Promise<string> {
  try {
    await parse(argv);
  } catch (err) {
    assert.ok(err instanceof UsageError, `not a UsageError: ${String(err)}`);
    return err.message;
  }
  assert.fail('no error');
}

describe('send: argv → options', () => {
  test('a plain send: the flags given, defaults for the rest', async () => {
    const o = await parse(['--to', '+447911123456', '--from', 'Acme', '--text', 'Hello']);
    assert.deepEqual(o.to, ['+447911123456']);
    assert.equal(o.from, 'Acme');
    assert.equal(o.text, 'Hello');
    assert.equal(o.timeout, 30_000);
    assert.equal(o.dryRun, undefined);
    assert.equal(o.json, undefined);
    assert.equal(o.quiet, undefined);
    assert.equal(o.template, undefined);
  });

  test('repeated and variadic options collect every value; comma lists are split later', async () => {
    const o = await parse(['--to', '+441', '+442', '--to', '+443,+444', '--meta', 'a=1', '--meta', 'b=2', '--var', 'name=Ann']);
    assert.deepEqual(o.to, ['+441', '+442', '+443,+444']);
    assert.deepEqual(o.meta, ['a=1', 'b=2']);
    assert.deepEqual(o.var, ['name=Ann']);
  });

  test('connection flags: seconds become milliseconds, booleans are true', async () => {
    const o = await parse(['--to', '+441', '--timeout', '2.5', '--sandbox', '--json', '-y', '-p', 'prod', '--api-key-file', 'k.txt', '--dry-run']);
    assert.equal(o.timeout, 2_500);
    assert.equal(o.sandbox, true);
    assert.equal(o.json, true);
    assert.equal(o.yes, true);
    assert.equal(o.profile, 'prod');
    assert.equal(o.apiKeyFile, 'k.txt');
    assert.equal(o.dryRun, true);
  });

  test('"--json" after --text is the text, not the flag', async () => {
    const o = await parse(['--to', '+441', '--text', '--json']);
    assert.equal(o.text, '--json');
    assert.equal(o.json, undefined);
  });

  test('a bad --timeout names the flag', async () => {
    assert.equal(await usageError(['--to', '+441', '--timeout', '0']), '--timeout: "0" is not a number of seconds between 0 and 3600');
    assert.equal(await usageError(['--to', '+441', '--timeout', 'soon']), '--timeout: "soon" is not a number of seconds between 0 and 3600');
  });

  test('-q with -v is a usage error', async () => {
    assert.equal(await usageError(['--to', '+441', '-q', '-v']), '--quiet and --verbose cannot be used together');
  });
});
