// What the subcommands of `msgr optout` share when they run: the account and its store, the
// numbers given read as the store keeps them, and how an entry is told (docs/optouts.md).
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { NO_ACCOUNT } from '../../files/account-files.js';
import { stateDir } from '../../files/state-dir.js';
import { checkCountry, normaliseNumber, OPT_OUT_NUMBERS } from '../../message/numbers.js';
import type { CountryCode } from 'libphonenumber-js/max';
import { createUi, type Ui } from '../../output/ui.js';
import { optOutStorePath, OptOutStore, refuseDamage, type OptOutEntry, type StoreWriter } from '../../optouts/store.js';
import { resolveAccount } from '../shared/account.js';
import type { StoreOptions } from './options.js';

/** The store a subcommand works on, and what it needs around it. */
export interface OptoutTarget {
  readonly ui: Ui;
  /** The state folder. */
  readonly state: string;
  /** undefined: the store for every account (--all-accounts, or no account known). */
  readonly account: string | undefined;
  /** The account's store file. */
  readonly path: string;
  readonly country: CountryCode | undefined;
  readonly writer: StoreWriter;
  /** For people: "account ACME", or "every account (_all)". */
  readonly scope: string;
  /** The numbers given, as the store keeps them; a UsageError naming each that is not one. */
  readonly numbers: (given: readonly string[]) => string[];
}

/** account → store: resolved as a send resolves it (flag > env > profile), with no profile needed. */
export async function optoutTarget(ctx: Context, sub: string, opts: StoreOptions): Promise<OptoutTarget> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  const state = stateDir(ctx.env, ctx.cwd);
  const chosen = await resolveAccount(ctx, { ...opts, account: opts.allAccounts ? undefined : opts.account });
  const account = opts.allAccounts ? undefined : chosen.account;
  const path = optOutStorePath(state, account);
  const country = chosen.defaultCountry !== undefined ? checkCountry(chosen.defaultCountry, '--default-country') : undefined;
  const writer: StoreWriter = { pid: ctx.pid, now: ctx.now, isProcessAlive: ctx.isProcessAlive, command: `msgr optout ${sub}` };
  const numbers = (given: readonly string[]): string[] => {
    const bad: string[] = [];
    const out = given.map((raw) => {
      const r = normaliseNumber(raw, country, OPT_OUT_NUMBERS);
      if (!r.ok) bad.push(`${raw}: ${r.reason}`);
      return r.ok ? r.e164 : '';
    });
    if (bad.length > 0) throw new UsageError(`not a phone number: ${bad.join('; ')}; nothing was changed`, { hint: 'Give international numbers (+44…), or national ones with --default-country.' });
    return out;
  };
  const scope = account === undefined ? `every account (${NO_ACCOUNT})` : `account ${account}`;
  return { ui, state, account, path, country, writer, scope, numbers };
}

export function entryJson(e: OptOutEntry, store: string): Record<string, unknown> {
  return { number: e.number, since: e.since, reason: e.reason, source: e.source, evidence: e.evidence ?? null, store };
}

/** The account's entries, then those of the store for every account it does not have. */
export function listEntries(state: string, account: string | undefined): { files: string[]; entries: Array<[OptOutEntry, string]> } {
  const own = optOutStorePath(state, account);
  const files = [...new Set([own, optOutStorePath(state, NO_ACCOUNT)])];
  const seen = new Set<string>();
  const entries: Array<[OptOutEntry, string]> = [];
  for (const [i, f] of files.entries()) {
    for (const e of refuseDamage(OptOutStore.open(f), i === 0 ? account : undefined, 'nothing was listed').entries()) {
      if (seen.has(e.number)) continue;
      seen.add(e.number);
      entries.push([e, f]);
    }
  }
  return { files, entries };
}
