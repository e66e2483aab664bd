// The command that continues a bulk run (`msgr send-bulk FILE --resume …`), printed when it starts,
// in its summary, in refusals and by `msgr runs show`: the flags a journal does not keep, given
// again, each quoted for a shell (docs/bulk.md: Nothing lost, nothing sent twice).
import { shellQuote } from '../../output/shell.js';
import { DEFAULT_CONCURRENCY, type ResumeArgs } from '../campaign.js';

/** The exact command that continues this run. */
export function buildResumeCommand(flags: ResumeArgs, fileAbs: string | undefined, stdin: boolean, journalPath: string): string {
  const args = ['msgr', 'send-bulk'];
  if (!stdin && fileAbs !== undefined) args.push(shellQuote(flags.file ?? fileAbs));
  // A keyed run's journal is the key's: the key finds it, from a file or from stdin piped again.
  if (flags.once !== undefined) args.push(...(stdin ? ['-'] : []), '--once', shellQuote(flags.once));
  else args.push('--resume');
  if (flags.once === undefined && (stdin || flags.journal !== undefined)) args.push('--journal', shellQuote(journalPath));
  if (flags.profile !== undefined) args.push('-p', shellQuote(flags.profile));
  if (flags.baseUrl !== undefined) args.push('--base-url', shellQuote(flags.baseUrl));
  if (flags.account !== undefined) args.push('--account', shellQuote(flags.account));
  if (flags.apiKeyFile !== undefined) args.push('--api-key-file', shellQuote(flags.apiKeyFile));
  if (flags.caFile !== undefined) args.push('--ca-file', shellQuote(flags.caFile));
  if (flags.sandbox) args.push('--sandbox');
  if (flags.concurrency !== DEFAULT_CONCURRENCY) args.push('--concurrency', String(flags.concurrency));
  if (flags.rate !== undefined) args.push('--rate', shellQuote(flags.rate.text));
  if (flags.report !== undefined) args.push('--report', shellQuote(flags.report));
  if (flags.yes) args.push('--yes');
  return args.join(' ');
}
