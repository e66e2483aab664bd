// The flags every subcommand of `msgr profile` takes. Commander only.
import type { Command } from 'commander';

export function addOutputOptions(cmd: Command): Command {
  return cmd
    .option('-q, --quiet', 'print nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'show stack traces on errors (the API key is never shown)');
}
