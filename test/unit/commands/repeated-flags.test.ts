// A flag that takes one value, given twice, is refused in every command (docs/contract.md:
// "Precedence"), before the command runs; the flags that take several say so in their help.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Command, Option } from 'commander';
import { buildProgram, main } from '../../../src/main.js';
import { isRepeatable } from '../../../src/commands/shared/flags.js';
import { tempDir } from '../../support/cli.js';
import { fakeContext } from '../../support/fake-context.js';

function commands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(commands)];
}

function path(cmd: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent != null; c = c.parent) names.unshift(c.name());
  return names;
}

const hidden = (o: Option): boolean => o.hidden;

describe('repeated flags', () => {
  const all = commands(buildProgram(fakeContext(), 'all'));

  test('every flag that keeps each of its values says "repeatable" in its help', () => {
    const repeatable = all.flatMap((c) => c.options.filter(isRepeatable).map((o) => [c, o] as const));
    assert.ok(repeatable.length >= 10, `${repeatable.length} repeatable flags`);
    for (const [c, o] of repeatable) assert.match(o.description, /repeatable/, `msgr ${path(c).join(' ')} ${o.flags}`);
    // And no flag says so that is not.
    for (const c of all) for (const o of c.options) if (!isRepeatable(o)) assert.doesNotMatch(o.description, /repeatable/, `msgr ${path(c).join(' ')} ${o.flags}`);
  });

  test('in every command, a flag that takes one value given twice is a usage error (exit 2) before anything runs', async () => {
    let checked = 0;
    for (const c of all) {
      const option = c.options.find((o) => (o.required || o.optional) && !isRepeatable(o) && !hidden(o) && o.long !== undefined);
      if (option === undefined || c.commands.length > 0) continue;
      const args = c.registeredArguments.filter((a) => a.required).map(() => '+447911123456');
      const ctx = fakeContext({ env: { MSGR_CONFIG_DIR: tempDir('msgr-repeated-'), NO_COLOR: '1' } });
      (ctx as { argv: readonly string[] }).argv = [...path(c), ...args, option.long ?? '', '1', option.long ?? '', '2'];
      assert.equal(await main(ctx), 2, `msgr ${ctx.argv.join(' ')}: ${ctx.err()}`);
      assert.equal(ctx.err().split('\n')[0], `error: option '${option.flags}' was given twice: it takes one value, and msgr does not choose between them`, ctx.argv.join(' '));
      assert.match(ctx.err(), new RegExp(`^hint: Give it once\\. The options that take several values say "repeatable" in: msgr ${path(c).join(' ')} --help$`, 'm'));
      checked++;
    }
    assert.ok(checked >= 20, `${checked} commands checked`);
  });

  test('a repeatable flag keeps each value; a flag without a value given twice is taken', async () => {
    const ctx = fakeContext({ env: { MSGR_CONFIG_DIR: tempDir('msgr-repeated-'), NO_COLOR: '1' } });
    (ctx as { argv: readonly string[] }).argv = ['send', '--sandbox', '--to', '+447911123456', '--to', '+447911123457', '--from', 'Acme', '--text', 'hi', '--dry-run', '--json', '--json'];
    assert.equal(await main(ctx), 0, ctx.err());
    assert.deepEqual((JSON.parse(ctx.out()) as { recipients: unknown[] }).recipients, [{ msisdn: '+447911123456' }, { msisdn: '+447911123457' }]);
  });
});
