// `msgr optout violations`. Commander only: the runs, the --once records and the store load when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addStoreOptions } from '../flags.js';

export function registerOptoutViolations(optout: Command, ctx: Context): void {
  addStoreOptions(
    optout
      .command('violations')
      .description("anyone messaged after opting out: the runs' accepted rows and send --once messages, checked against the store as it was when each left (exit 0 either way; nothing on stdout when there are none)")
      .option('--sandbox', "check the sandbox's runs and --once messages instead of the real ones"),
  ).action(async (opts: unknown) => {
    const { parseViolationsOptions } = await import('./options.js');
    const { runOptoutViolations } = await import('./run.js');
    await runOptoutViolations(ctx, parseViolationsOptions(opts));
  });
}
