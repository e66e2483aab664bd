// The flags of `msgr send-bulk` as the engine names them in what it prints: a refusal's "--resume:
// …", a hint to add --skip-sent, the command that continues a run. The engine never reads a flag
// (it takes a Campaign: bulk/campaign.ts); where a message must name one, the name comes from
// here, and test/unit/bulk/flag-names.test.ts checks each against the options send-bulk declares
// (src/commands/send-bulk/index.ts). A leaf of the engine: every folder may import it.
import type { Purpose } from './campaign.js';

export const FLAG = {
  // what to send
  text: '--text',
  textFile: '--text-file',
  textEncoding: '--text-encoding',
  template: '--template',
  textColumn: '--text-column',
  fromColumn: '--from-column',
  from: '--from',
  channel: '--channel',
  meta: '--meta',
  name: '--name',
  characterSet: '--character-set',
  messageType: '--message-type',
  validity: '--validity',
  noRender: '--no-render',
  maxParts: '--max-parts',
  // to whom
  msisdnColumn: '--msisdn-column',
  noHeader: '--no-header',
  varColumns: '--var-columns',
  metaColumns: '--meta-columns',
  delimiter: '--delimiter',
  encoding: '--encoding',
  skipInvalid: '--skip-invalid',
  allowDuplicates: '--allow-duplicates',
  firstPerNumber: '--first-per-number',
  allowUnlistedNumbers: '--allow-unlisted-numbers',
  fixMojibake: '--fix-mojibake',
  exclude: '--exclude',
  excludeColumn: '--exclude-column',
  includeOptedOut: '--include-opted-out',
  defaultCountry: '--default-country',
  // where
  profile: '-p',
  baseUrl: '--base-url',
  account: '--account',
  apiKeyFile: '--api-key-file',
  caFile: '--ca-file',
  sandbox: '--sandbox',
  // how fast
  batchSize: '--batch-size',
  concurrency: '--concurrency',
  rate: '--rate',
  // when
  window: '--window',
  tz: '--tz',
  anyTime: '--any-time',
  notBefore: '--not-before',
  stopAt: '--stop-at',
  exitWhenClosed: '--exit-when-closed',
  // earlier runs
  journal: '--journal',
  resume: '--resume',
  resendInDoubt: '--resend-in-doubt',
  restart: '--restart',
  includeSent: '--include-sent',
  skipInDoubt: '--skip-in-doubt',
  skipSent: '--skip-sent',
  deliveredOnly: '--delivered-only',
  again: '--again',
  once: '--once',
  sameData: '--same-data',
  // what this command does
  dryRun: '--dry-run',
  preview: '--preview',
  sampleTo: '--sample-to',
  sample: '--sample',
  // canary and cost
  limit: '--limit',
  gsmSafe: '--gsm-safe',
  mobileOnly: '--mobile-only',
  priceFile: '--price-file',
  maxCost: '--max-cost',
  // output
  report: '--report',
  json: '--json',
  verbose: '--verbose',
  yes: '--yes',
} as const;

/** The flag that makes a command other than a send of the campaign: `--dry-run`, `--preview`, `--sample-to`. */
export function purposeFlag(purpose: Purpose): string | undefined {
  switch (purpose.kind) {
    case 'send':
      return undefined;
    case 'dry-run':
      return FLAG.dryRun;
    case 'preview':
      return FLAG.preview;
    case 'sample':
      return FLAG.sampleTo;
  }
}
