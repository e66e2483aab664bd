// `msgr profile show`: every resolved setting and where it came from; the problems a send would
// stop on, as warnings.
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { maskSecret, showControls } from '../../../output/sanitize.js';
import { createUi, type Ui } from '../../../output/ui.js';
import { formatSources } from '../../../output/table.js';
import { lineWidth, wrap } from '../../../output/wrap.js';
import { describeSource, resolveSettings, type Resolved, type Settings } from '../../../settings/resolve.js';
import { checkBaseUrl } from '../../../profiles/base-url.js';
import { checkCountryCode, warnTo } from '../shared.js';
import type { ShowOptions } from './options.js';

export async function runShow(ctx: Context, name: string | undefined, opts: ShowOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  if (name !== undefined && opts.profile !== undefined && name !== opts.profile) {
    throw new UsageError(`two profiles given: "${name}" and --profile ${opts.profile}`, { hint: 'Give one.' });
  }
  const settings = await resolveSettings(ctx, { ...opts, profile: name ?? opts.profile }, { warn: warnTo(ui) });
  const key = settings.apiKey.value !== undefined ? maskSecret(settings.apiKey.value) : undefined;
  if (opts.json === true) {
    const entry = (r: Resolved<string | undefined>, value: string | undefined = r.value) => ({
      value: value ?? null,
      source: r.source,
      ...(r.origin !== undefined ? { origin: r.origin } : {}),
    });
    const doc = {
      profile: entry(settings.profile),
      baseUrl: entry(settings.baseUrl),
      account: entry(settings.account),
      apiKey: entry(settings.apiKey, key),
      from: entry(settings.from),
      channel: entry(settings.channel),
      caFile: entry(settings.caFile),
      defaultCountry: entry(settings.defaultCountry),
      // Quiet hours, when the profile keeps them (docs/send-windows.md).
      ...(settings.window.value !== undefined ? { window: entry(settings.window) } : {}),
      ...(settings.tz.value !== undefined ? { tz: entry(settings.tz) } : {}),
      ...(settings.priceFile.value !== undefined ? { priceFile: entry(settings.priceFile) } : {}),
      confirm: { value: settings.confirm, source: settings.confirm ? 'profile' : 'default', ...(settings.confirm ? { origin: settings.profile.value } : {}) },
      configFile: settings.configFile,
    };
    ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else {
    const confirmRow: Resolved<string | undefined> = settings.confirm
      ? { value: 'yes', source: 'profile', origin: settings.profile.value ?? '' }
      : { value: 'no', source: 'default' };
    const rows: Array<[string, string, string]> = [
      ['profile', settings.profile.value ?? '(none)', describeSource(settings.profile)],
      ['base URL', settings.baseUrl.value ?? '(not set)', describeSource(settings.baseUrl)],
      ['account', settings.account.value ?? '(not set)', describeSource(settings.account)],
      ['API key', key ?? '(not set)', describeSource(settings.apiKey)],
      ['from', settings.from.value ?? '(not set)', describeSource(settings.from)],
      ['channel', settings.channel.value ?? '(not set)', describeSource(settings.channel)],
      ['CA file', settings.caFile.value ?? '(not set)', describeSource(settings.caFile)],
      ['country', settings.defaultCountry.value ?? '(not set)', describeSource(settings.defaultCountry)],
      ['confirm', confirmRow.value ?? '', describeSource(confirmRow)],
      ...(settings.window.value !== undefined ? [['send window', settings.window.value, describeSource(settings.window)] as [string, string, string]] : []),
      ...(settings.tz.value !== undefined ? [['time zone', settings.tz.value, describeSource(settings.tz)] as [string, string, string]] : []),
      ...(settings.priceFile.value !== undefined ? [['price file', settings.priceFile.value, describeSource(settings.priceFile)] as [string, string, string]] : []),
    ];
    // The path is long: outside the table, so it does not widen the value column.
    // On a narrow terminal each source goes under its value (output/table.ts).
    const width = lineWidth(ctx.stdout);
    const shown = formatSources(rows.map(([name, value, source]) => [name, showControls(value), showControls(source)] as const), width);
    ctx.stdout.write(`${shown.join('\n')}\n${wrap(`${'config'.padEnd(8)}  ${showControls(settings.configFile)}`, lineWidth(ctx.stdout), { hang: 10 })}\n`);
  }
  await warnMissing(ui, settings);
}

/** The problems a send would stop on, as warnings: `show` lists the settings even when they are wrong. */
async function warnMissing(ui: Ui, s: Settings): Promise<void> {
  if (s.baseUrl.value === undefined) ui.warn('no base URL: sends need --base-url, MSGR_BASE_URL, or a profile with one (msgr profile add / set)');
  else {
    try {
      checkBaseUrl(s.baseUrl.value, describeSource(s.baseUrl));
    } catch (err) {
      if (err instanceof UsageError) ui.warn(err.message);
    }
  }
  if (s.account.value === undefined) ui.warn('no account: sends need --account, MSGR_ACCOUNT_REFERENCE, or a profile with one');
  if (s.apiKey.value === undefined) ui.warn('no API key: sends need MSGR_API_KEY, --api-key-file, --api-key-stdin, or a profile with one');
  if (s.defaultCountry.value !== undefined) {
    try {
      await checkCountryCode(s.defaultCountry.value, describeSource(s.defaultCountry));
    } catch (err) {
      if (err instanceof UsageError) ui.warn(`${err.message}${err.hint !== undefined ? ` (${err.hint})` : ''}`);
    }
  }
}
