// The account whose events file and opt-out store a command uses (docs/optouts.md: "One store per
// account"): resolved as a send resolves it (flag > env > profile), with no profile needed; with
// none at all, the `_all` files (src/files/account-files.ts).
import type { Context } from '../../context.js';
import { describeSource, resolveSettings } from '../../settings/resolve.js';

export interface AccountChoice {
  /** undefined: no account known. */
  readonly account: string | undefined;
  /** Where it came from, for people: "flag --account", "profile prod", "not set". */
  readonly source: string;
  /** The country national numbers are read in: --default-country > MSGR_DEFAULT_COUNTRY > the profile's. */
  readonly defaultCountry: string | undefined;
}

export async function resolveAccount(ctx: Context, flags: { readonly profile?: string | undefined; readonly account?: string | undefined; readonly defaultCountry?: string | undefined }): Promise<AccountChoice> {
  const settings = await resolveSettings(ctx, { profile: flags.profile, account: flags.account, defaultCountry: flags.defaultCountry }, { profileOptional: true });
  return { account: settings.account.value, source: describeSource(settings.account), defaultCountry: settings.defaultCountry.value };
}
