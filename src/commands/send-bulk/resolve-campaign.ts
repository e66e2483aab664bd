// argv → the campaign (bulk/campaign.ts): the one place send-bulk's options become what the
// engine takes. The options were checked flag by flag (./options.ts); here they are resolved
// against the settings (profile, environment) and grouped by what they say: what to send, to
// whom, where, how fast, what to do with earlier runs, and what this command does with it. The
// commands msgr prints for people to run next are made here too, from the command line as given.
import { UsageError } from '../../errors.js';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { msgrCommand, shellQuote } from '../../output/shell.js';
import { placeOf } from '../../once/keys.js';
import { resolveSettings } from '../../settings/resolve.js';
import { settingsEndpoint } from '../../settings/target.js';
import { resolveSchedule } from '../../schedule/index.js';
import { profileSchedule } from '../shared/send-windows.js';
import type { Campaign, Purpose, Rerun } from '../../bulk/campaign-door.js';
import { DEFAULT_BATCH_SIZE } from '../../bulk/campaign.js';
import type { BulkOptions } from './options.js';

export async function resolveCampaign(ctx: Context, opts: BulkOptions): Promise<Campaign> {
  const settings = await resolveSettings(
    ctx,
    { profile: opts.profile, baseUrl: opts.baseUrl, account: opts.account, apiKeyFile: opts.apiKeyFile, apiKeyStdin: opts.apiKeyStdin, from: opts.from, channel: opts.channel, caFile: opts.caFile, defaultCountry: opts.defaultCountry },
    { profileOptional: opts.sandbox },
  );
  // A base URL msgr would refuse to send to stops the run before anything is read (a dry run too,
  // as `send --dry-run` checks it).
  if (!opts.sandbox) settingsEndpoint(ctx, settings.baseUrl);
  const purpose: Purpose =
    opts.preview !== undefined ? { kind: 'preview', rows: opts.preview }
    : opts.sampleTo !== undefined ? { kind: 'sample', to: opts.sampleTo, rows: opts.sample }
    : opts.dryRun ? { kind: 'dry-run' }
    : { kind: 'send' };
  const given = resolveSchedule(opts, profileSchedule(settings), ctx.now().getTime());
  // The profile's price file is a default: a template run (whose parts are not known here) goes without it.
  const priceFile = opts.priceFile !== undefined ? { given: opts.priceFile, path: resolve(ctx.cwd, opts.priceFile) } : settings.priceFile.value !== undefined && opts.template === undefined ? { given: settings.priceFile.value, path: settings.priceFile.value } : undefined;
  if (opts.maxCost !== undefined && priceFile === undefined) throw new UsageError('--max-cost needs --price-file FILE: msgr knows no prices of its own', { hint: 'For example --price-file prices.csv --max-cost 250 (the file: country code or E.164 prefix, price per part, currency), or keep one in the profile: msgr profile set NAME price-file prices.csv.' });
  const skipSent = opts.skipSent !== undefined ? { runs: opts.skipSent.filter((ref) => ref !== ''), same: opts.skipSent.includes('') } : undefined;
  return {
    message: {
      text: opts.text,
      textFile: opts.textFile !== undefined ? { path: opts.textFile, encoding: opts.textEncoding } : undefined,
      template: opts.template,
      textColumn: opts.textColumn,
      fromColumn: opts.fromColumn,
      from: opts.from,
      channel: opts.channel,
      render: !opts.noRender,
      maxParts: opts.maxParts,
      gsmSafe: opts.gsmSafe,
      meta: opts.meta,
      name: opts.name,
      characterSet: opts.characterSet,
      messageType: opts.messageType,
      validity: opts.validity,
    },
    input: {
      file: opts.file,
      columns: { msisdn: opts.msisdnColumn, vars: opts.varColumns, meta: opts.metaColumns, headerRow: !opts.noHeader },
      format: { delimiter: opts.delimiter, encoding: opts.encoding },
      rows: { skipInvalid: opts.skipInvalid, allowDuplicates: opts.allowDuplicates, firstPerNumber: opts.firstPerNumber, allowUnlisted: opts.allowUnlistedNumbers, fixMojibake: opts.fixMojibake, mobileOnly: opts.mobileOnly },
      exclude: opts.exclude !== undefined ? { given: opts.exclude, path: resolve(ctx.cwd, opts.exclude), column: opts.excludeColumn } : undefined,
      includeOptedOut: opts.includeOptedOut === true,
      defaultCountry: opts.defaultCountry,
    },
    where: {
      settings,
      sandbox: opts.sandbox,
      webhookUrl: opts.webhookUrl,
      timeoutMs: opts.timeoutMs,
      account: opts.account,
      // A campaign key belongs to a target account: the API (or the sandbox) and the account.
      place: placeOf(settings.baseUrl.value, opts.sandbox, settings.account.value ?? (opts.sandbox ? 'SANDBOX' : undefined)),
    },
    // A canary smaller than a request is sent exactly: the run's requests are that size (a resume keeps the journal's).
    pace: { batchSize: opts.batchSize ?? (opts.limit !== undefined && opts.limit < DEFAULT_BATCH_SIZE && !opts.resume ? opts.limit : undefined), concurrency: opts.concurrency, rate: opts.rate },
    when: { given, exitWhenClosed: opts.exitWhenClosed },
    earlier: {
      request: opts.resume ? 'resume' : opts.restart ? 'restart' : 'new',
      journal: opts.journal,
      resendInDoubt: opts.resendInDoubt,
      skipSent,
      deliveredOnly: opts.deliveredOnly === true,
      again: opts.again,
      includeSent: opts.includeSent,
      skipInDoubt: opts.skipInDoubt,
      once: opts.once,
      sameData: opts.sameData,
    },
    purpose,
    output: {
      json: opts.json,
      quiet: opts.quiet,
      verbose: opts.verbose,
      yes: opts.yes,
      report: opts.report !== undefined ? { given: opts.report, path: resolve(ctx.cwd, opts.report) } : undefined,
      progressEveryMs: opts.progressEveryMs,
    },
    spend: { limit: opts.limit, priceFile, maxCost: opts.maxCost },
    resumeWith: { file: opts.file, profile: opts.profile, baseUrl: opts.baseUrl, account: opts.account, apiKeyFile: opts.apiKeyFile, caFile: opts.caFile, sandbox: opts.sandbox, concurrency: opts.concurrency, rate: opts.rate, report: opts.report, yes: opts.yes, journal: opts.journal, once: opts.once, ...(given.stopAtGiven && given.schedule.stopAt !== undefined ? { stopAt: new Date(given.schedule.stopAt).toISOString() } : {}), ...(opts.exitWhenClosed ? { exitWhenClosed: true } : {}) },
    rerun: rerun(ctx.argv, settings.baseUrl),
  };
}

function rerun(argv: readonly string[], baseUrl: { readonly source: string; readonly origin?: string | undefined }): Rerun {
  return { maxCost: (amount) => msgrCommand(argv, { set: ['--max-cost', amount] }), campaign: realRunCommand(argv), resume: realRunCommand(argv, '--resume'), restart: realRunCommand(argv, '--restart'), baseUrlFixed: restartCommand(argv, baseUrl) };
}

/**
 * The command that sends the campaign: this one without --sample-to and --sample, and with `add`
 * (`--resume`) among the options, before a `--` that ends them.
 */
export function realRunCommand(argv: readonly string[], add?: string): string {
  const args: string[] = [];
  let end = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') end = true;
    if (!end && (a === '--sample-to' || a === '--sample')) {
      i++;
      continue;
    }
    if (!end && (a.startsWith('--sample-to=') || a.startsWith('--sample='))) continue;
    args.push(a);
  }
  return msgrCommand(args, add !== undefined ? { add } : {});
}

/**
 * The command that sends a run's rows once its base URL is fixed, for a run that stopped on a
 * redirect, 404 or 405: a new run of this command with --restart (a resume goes to the run's own
 * base URL, and one to another is refused), the base URL set where it was given. `URL` stands
 * for the right base URL, which msgr cannot know. Undefined for a resume, whose command lacks
 * the message's flags.
 */
export function restartCommand(argv: readonly string[], baseUrl: { readonly source: string; readonly origin?: string | undefined }): string | undefined {
  if (argv.includes('--resume')) return undefined;
  if (baseUrl.source === 'flag') return msgrCommand(argv, { set: ['--base-url', 'URL'], add: '--restart' });
  const command = msgrCommand(argv, { add: '--restart' });
  if (baseUrl.source === 'env') return `MSGR_BASE_URL=URL ${command}`;
  if (baseUrl.source === 'profile' && baseUrl.origin !== undefined) return `msgr profile set ${shellQuote(baseUrl.origin)} base-url URL && ${command}`;
  return undefined;
}
