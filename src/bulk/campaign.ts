// The campaign, as the engine takes it: one resolved, typed description of what to send, to whom,
// where, how fast, what to do with earlier runs, and what this command does with it (send it, a
// dry run, a preview, a sample). `msgr send-bulk` builds it once from argv and the settings
// (src/commands/send-bulk/resolve-campaign.ts); the engine reads it and never a flag (where a message must
// name one: bulk/flag-names.ts). Also the value --rate takes (--delimiter's is src/csv/'s), and
// the defaults of what a command may leave out. A leaf of the engine: every folder may import it, and
// it imports none of them.
import type { FileEncoding } from '../message/text-file.js';
import type { Place } from '../once/keys.js';
import type { Settings } from '../settings/resolve.js';
import type { MaxCost } from '../pricing/max-cost.js';
import type { ResolvedSchedule } from '../schedule/index.js';

export interface Campaign {
  readonly message: CampaignMessage;
  readonly input: CampaignInput;
  readonly where: CampaignWhere;
  readonly pace: CampaignPace;
  /** When: send windows and deadlines (src/schedule/; docs/send-windows.md). */
  readonly when: CampaignWhen;
  readonly earlier: CampaignEarlier;
  readonly purpose: Purpose;
  readonly output: CampaignOutput;
  /** What this command may spend: rows, parts, money (docs/cost-and-canary.md). */
  readonly spend: CampaignSpend;
  /** What a printed resume command repeats: the flags a journal does not keep (bulk/this-run/resume-command.ts). */
  readonly resumeWith: ResumeArgs;
  /** This command as msgr prints it for people to run next. */
  readonly rerun: Rerun;
}

/**
 * What to send, as the command says it. A resume sends what its journal says: these are then what
 * the command repeats, each checked against the journal (bulk/this-run/resume-checks.ts).
 */
export interface CampaignMessage {
  /** One text for every row (--text). */
  readonly text: string | undefined;
  /** The file the text is read from ('-': stdin), and its encoding when it has no BOM. */
  readonly textFile: { readonly path: string; readonly encoding: FileEncoding | undefined } | undefined;
  readonly template: string | undefined;
  /** Each row's text, or sender, from a column (bulk/compose/personalise.ts). */
  readonly textColumn: string | undefined;
  readonly fromColumn: string | undefined;
  /** The sender and channel the command names; the settings' (where.settings) may come from a profile. */
  readonly from: string | undefined;
  readonly channel: string | undefined;
  /** Placeholders are filled in from each row (false: the text is sent as written). */
  readonly render: boolean;
  /** Rows whose message takes more SMS parts are invalid. */
  readonly maxParts: number | undefined;
  /** --gsm-safe: the text's look-alikes (’ “ – …) replaced with GSM-7 characters before it is counted and sent. */
  readonly gsmSafe: boolean;
  readonly meta: readonly string[] | undefined;
  readonly name: string | undefined;
  readonly characterSet: string | undefined;
  readonly messageType: string | undefined;
  readonly validity: string | undefined;
}

/** To whom: the file and how it is read, and who is left out. */
export interface CampaignInput {
  /** The CSV as given; '-': stdin; undefined: a resume of the journal alone (its file is the journal's). */
  readonly file: string | undefined;
  readonly columns: {
    readonly msisdn: string | undefined;
    readonly vars: readonly string[] | undefined;
    readonly meta: readonly string[] | undefined;
    /** The first line names the columns (false: it is a recipient, and columns are numbered). */
    readonly headerRow: boolean;
  };
  readonly format: { readonly delimiter: string | undefined; readonly encoding: FileEncoding | undefined };
  readonly rows: {
    readonly skipInvalid: boolean;
    /** A number on several rows with different messages: each of them (allowDuplicates), its first row's (firstPerNumber), or a stop. */
    readonly allowDuplicates: boolean;
    readonly firstPerNumber: boolean;
    /** Possible numbers outside the known numbering plan are sent. */
    readonly allowUnlisted: boolean;
    /** Cells (and a shared text) mangled by a spreadsheet round trip are sent repaired. */
    readonly fixMojibake: boolean;
    /** --mobile-only: numbers typed fixed line, toll-free and the like are left out (number-types/). */
    readonly mobileOnly: boolean;
  };
  /** Numbers not to message: the list as given, its absolute path, and its number column. */
  readonly exclude: { readonly given: string; readonly path: string; readonly column: string | undefined } | undefined;
  /** Send to the numbers in the account's opt-out store too (--include-opted-out, with --yes); by default they are left out. */
  readonly includeOptedOut: boolean;
  /** The default country the command names; the settings' may come from the environment or a profile. */
  readonly defaultCountry: string | undefined;
}

/** Where: the settings as resolved (base URL, key, account, sender, channel, CA file, country). */
export interface CampaignWhere {
  readonly settings: Settings;
  readonly sandbox: boolean;
  /** With the sandbox: where the emulator posts its events. */
  readonly webhookUrl: string | undefined;
  readonly timeoutMs: number;
  /** The account the command names, which a resume must match. */
  readonly account: string | undefined;
  /** The API and account, as far as they are known without the key: a campaign key's scope, and what "the same target" is for a run of a file again. */
  readonly place: Place;
}

/** How fast. */
export interface CampaignPace {
  /** Recipients per request as the command says (undefined: the default, or the journal's). */
  readonly batchSize: number | undefined;
  readonly concurrency: number;
  readonly rate: Rate | undefined;
}

/** When rows may leave, as the command (and its profile) says; a resume keeps its journal's windows. */
export interface CampaignWhen {
  readonly given: ResolvedSchedule;
  /** --exit-when-closed: a closed window ends the run (exit 8) with its resume command, instead of waiting. */
  readonly exitWhenClosed: boolean;
}

/** What to do with earlier runs of the file; what is on disk decides which run this is (bulk/this-run/open.ts). */
export interface CampaignEarlier {
  /** A new run, the unfinished run continued, or that run abandoned and a new one started. */
  readonly request: 'new' | 'resume' | 'restart';
  /** Where the run keeps its journal, as given (undefined: in the state folder). */
  readonly journal: string | undefined;
  /** A resume sends the batches an earlier run left in doubt again, under their first Idempotency-Key. */
  readonly resendInDoubt: boolean;
  /**
   * Leave out the numbers earlier runs accepted: those of the runs named (ids or journals, as
   * given) and, with `same`, of every earlier run of this file that sent the same message.
   */
  readonly skipSent: { readonly runs: readonly string[]; readonly same: boolean } | undefined;
  /** --delivered-only: of those runs, only the numbers their receipts say were delivered count as sent. */
  readonly deliveredOnly: boolean;
  /** Message again, on purpose, the numbers earlier runs of this file accepted. */
  readonly again: boolean;
  /** A restart sends to the rows the abandoned run accepted as well. */
  readonly includeSent: boolean;
  /** A restart leaves out the rows its abandoned run left in doubt, as if accepted (a person checked them). */
  readonly skipInDoubt: boolean;
  /** The campaign key the run is known by (bulk/earlier/campaign-key.ts). */
  readonly once: string | undefined;
  /**
   * --same-data: a new run under a campaign key may read the same data as an earlier run under
   * another key (bulk/earlier/campaign-key.ts sameDataRun); without it, that stops the run.
   */
  readonly sameData: boolean;
}

/** What this command may spend (docs/cost-and-canary.md). */
export interface CampaignSpend {
  /** --limit: the rows this command sends at most (whole requests), the rest left to a resume. */
  readonly limit: number | undefined;
  /** --price-file: as given, and its absolute path. */
  readonly priceFile: { readonly given: string; readonly path: string } | undefined;
  /** --max-cost: the estimate above which the run does not start. */
  readonly maxCost: MaxCost | undefined;
}

/** What this command does with the campaign. */
export type Purpose =
  | { readonly kind: 'send' }
  | { readonly kind: 'dry-run' }
  /** The first rows' messages printed. */
  | { readonly kind: 'preview'; readonly rows: number }
  /** The first rows' messages sent to these numbers instead, as a run of their own. */
  | { readonly kind: 'sample'; readonly to: readonly string[]; readonly rows: number };

/**
 * Whether the command writes a journal: only a send of the campaign does (with its lock, its disk
 * reserve, its report). A dry run, a preview and a sample are no run of the campaign.
 */
export function journalOf(purpose: Purpose): 'write' | 'none' {
  return purpose.kind === 'send' ? 'write' : 'none';
}

/** A dry run and a preview send nothing: they need no target (no key, no base URL, no client). */
export function isOffline(purpose: Purpose): boolean {
  return purpose.kind === 'dry-run' || purpose.kind === 'preview';
}

export interface CampaignOutput {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** Send without the question (a terminal) and the production guard's stop (no terminal). */
  readonly yes: boolean;
  /** Every row's outcome: the file as given, and its absolute path. */
  readonly report: { readonly given: string; readonly path: string } | undefined;
  /** Without a terminal, one progress line per interval. */
  readonly progressEveryMs: number | undefined;
}

/** The flags a resumed run must be given again: they are not in the journal. */
export interface ResumeArgs {
  readonly file: string | undefined;
  readonly profile?: string | undefined;
  readonly baseUrl?: string | undefined;
  /** A resume must send for the run's account, which a profile may not give. */
  readonly account?: string | undefined;
  readonly apiKeyFile?: string | undefined;
  readonly caFile?: string | undefined;
  readonly sandbox: boolean;
  readonly concurrency: number;
  readonly rate?: Rate | undefined;
  readonly report?: string | undefined;
  readonly yes: boolean;
  /** The journal as given; a resume must name it too. */
  readonly journal?: string | undefined;
  /** A keyed run goes on with its key. */
  readonly once?: string | undefined;
  /** A deadline the command gave (ISO 8601): a resume past the journal's goes on with it. */
  readonly stopAt?: string | undefined;
  /** --exit-when-closed: the resume a cron line runs exits too. */
  readonly exitWhenClosed?: boolean | undefined;
}

/** This command, edited, as printed for people: what works next (a sample's "send the campaign with", a fixed base URL). */
export interface Rerun {
  /** Without the sample's flags: the campaign itself. */
  readonly campaign: string;
  /** The same, continuing the unfinished run. */
  readonly resume: string;
  /** The same, abandoning it. */
  readonly restart: string;
  /** This command with --max-cost set to an amount (a refusal's way on). */
  readonly maxCost: (amount: string) => string;
  /** A new run with the base URL to fix where it was given, and --restart; undefined: none can be given (a resume). */
  readonly baseUrlFixed: string | undefined;
}

export interface Rate {
  /** Recipients per millisecond. */
  readonly perMs: number;
  readonly text: string;
}

const UNITS: Record<string, number> = { s: 1_000, sec: 1_000, second: 1_000, m: 60_000, min: 60_000, minute: 60_000, h: 3_600_000, hr: 3_600_000, hour: 3_600_000 };

/** `100/s`, `6000/m`, `20000/h` (also `/sec`, `/min`, `/hour`). */
export function parseRate(input: string): Rate | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*\/\s*([a-z]+)\s*$/i.exec(input);
  if (m === null) return undefined;
  const count = Number(m[1]);
  const unit = UNITS[(m[2] ?? '').toLowerCase()];
  if (unit === undefined || !(count > 0) || !Number.isFinite(count)) return undefined;
  return { perMs: count / unit, text: input.trim() };
}

/** Requests in flight unless --concurrency says otherwise. */
export const DEFAULT_CONCURRENCY = 4;

/** Recipients per request unless --batch-size says otherwise. */
export const DEFAULT_BATCH_SIZE = 100;
