// The flags the engine names in what it prints (src/bulk/flag-names.ts) are send-bulk's own: each
// is declared by the command (src/commands/send-bulk/index.ts), so renaming a flag there without
// its name here fails, and no message offers a flag the command would refuse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command } from 'commander';
import { FLAG, purposeFlag } from '../../../src/bulk/flag-names.js';
import { registerSendBulk } from '../../../src/commands/send-bulk/index.js';
import { fakeContext } from '../../support/fake-context.js';

test('every flag the engine names is one send-bulk declares', () => {
  const program = new Command('msgr');
  registerSendBulk(program, fakeContext(), () => Promise.resolve());
  const cmd = program.commands.find((c) => c.name() === 'send-bulk');
  assert.ok(cmd !== undefined);
  const declared = new Set(cmd.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined));
  // The check can fail: a name the command does not have is not declared.
  assert.ok(declared.has('--resume') && !declared.has('--resumes'));
  const strays = Object.entries(FLAG).filter(([, flag]) => !declared.has(flag));
  assert.deepEqual(strays, []);
});

test('a purpose other than a send is named by its flag', () => {
  assert.equal(purposeFlag({ kind: 'send' }), undefined);
  assert.equal(purposeFlag({ kind: 'dry-run' }), '--dry-run');
  assert.equal(purposeFlag({ kind: 'preview', rows: 5 }), '--preview');
  assert.equal(purposeFlag({ kind: 'sample', to: ['+447911123456'], rows: 1 }), '--sample-to');
});
