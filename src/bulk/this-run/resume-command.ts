// The command that continues a bulk run (`msgr send-bulk FILE --resume …`), printed when it starts,
// in its summary, in refusals and by `msgr runs show`: the flags a journal does not keep, given
// again, each quoted for a shell (docs/files.md: "Nothing lost, nothing sent twice").
import { shellQuote } from '../../output/shell.js';
import { DEFAULT_CONCURRENCY, type ResumeArgs } from '../campaign.js';
import { FLAG } from '../flag-names.js';

/**
 * The exact command that continues this run; with `resendInDoubt`, sending its batches in doubt
 * again too (which takes --resume, also under a campaign key).
 */
export function buildResumeCommand(flags: ResumeArgs, fileAbs: string | undefined, stdin: boolean, journalPath: string, o: { readonly resendInDoubt?: boolean } = {}): string {
  const args = ['msgr', 'send-bulk'];
  if (!stdin && fileAbs !== undefined) args.push(shellQuote(flags.file ?? fileAbs));
  // A keyed run's journal is the key's: the key finds it, from a file or from stdin piped again.
  if (flags.once !== undefined) args.push(...(stdin ? ['-'] : []), FLAG.once, shellQuote(flags.once));
  if (flags.once === undefined || o.resendInDoubt === true) args.push(FLAG.resume);
  if (o.resendInDoubt === true) args.push(FLAG.resendInDoubt);
  if (flags.once === undefined && (stdin || flags.journal !== undefined)) args.push(FLAG.journal, shellQuote(journalPath));
  if (flags.profile !== undefined) args.push(FLAG.profile, shellQuote(flags.profile));
  if (flags.baseUrl !== undefined) args.push(FLAG.baseUrl, shellQuote(flags.baseUrl));
  if (flags.account !== undefined) args.push(FLAG.account, shellQuote(flags.account));
  if (flags.apiKeyFile !== undefined) args.push(FLAG.apiKeyFile, shellQuote(flags.apiKeyFile));
  if (flags.caFile !== undefined) args.push(FLAG.caFile, shellQuote(flags.caFile));
  if (flags.sandbox) args.push(FLAG.sandbox);
  if (flags.concurrency !== DEFAULT_CONCURRENCY) args.push(FLAG.concurrency, String(flags.concurrency));
  if (flags.rate !== undefined) args.push(FLAG.rate, shellQuote(flags.rate.text));
  if (flags.report !== undefined) args.push(FLAG.report, shellQuote(flags.report));
  if (flags.stopAt !== undefined) args.push(FLAG.stopAt, shellQuote(flags.stopAt));
  if (flags.exitWhenClosed === true) args.push(FLAG.exitWhenClosed);
  if (flags.yes) args.push(FLAG.yes);
  return args.join(' ');
}
