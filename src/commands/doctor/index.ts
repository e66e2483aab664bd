// `msgr doctor`: Commander wiring only; the checks load when it runs.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { addConnectionOptions } from '../shared/flags.js';
import type { DoctorOptions } from './options.js';

/** `runF` replaces the run (tests: argv → options without checking anything). */
export function registerDoctor(program: Command, ctx: Context, runF?: (opts: DoctorOptions) => Promise<void>): void {
  const cmd = program
    .command('doctor')
    .description('check the way from this machine to the API (settings, DNS, proxy, TLS, HTTP) without sending a message')
    .addHelpText(
      'after',
      `
Each step gets a line; a failure says what to do. Only a GET of the base URL is made: nothing is
ever POSTed, and the API key is not checked (the API has no way to check one without sending).
Exit 0 when every step passes, 2 for a configuration problem, 5 when the API cannot be reached.

Examples:
  msgr doctor
  msgr doctor -p prod --json
  HTTPS_PROXY=http://ops:PASSWORD@proxy.corp:3128 msgr doctor --ca-file corp-root.pem
  msgr doctor --sandbox`,
    );
  addConnectionOptions(cmd, { send: false }).action(async (_opts: unknown, command: Command) => {
    const { parseDoctorOptions } = await import('./options.js');
    const opts = parseDoctorOptions(command.opts());
    if (runF !== undefined) return runF(opts);
    const { runDoctorCommand } = await import('./run.js');
    await runDoctorCommand(ctx, opts);
  });
}
