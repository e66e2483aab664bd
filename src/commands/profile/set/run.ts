// `msgr profile set`: one setting of a profile changed, its value checked first.
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { maskSecret } from '../../../output/sanitize.js';
import { createUi } from '../../../output/ui.js';
import { checkBaseUrl } from '../../../profiles/base-url.js';
import { shellQuote } from '../../../output/shell.js';
import { getProfile, loadStore, unknownProfileError, updateStore, type Profile } from '../../../profiles/profile-file.js';
import { checkBool, checkCaFile, checkChannel, checkCountryCode, checkPriceFile, checkText, describeProfile, obtainKey, settingName, warnTo, type SettingName } from '../shared.js';
import type { SetOptions } from './options.js';
import { parseZoneRule, resolveSchedule, splitWindows, zoneRuleText } from '../../../schedule/index.js';

export async function runSet(ctx: Context, name: string, setting: string, value: string | undefined, opts: SetOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const which = settingName(setting);
  const apply = await settingChange(ctx, name, which, value, opts);
  const { result } = await updateStore(
    ctx,
    (store) => {
      const p = getProfile(store, name);
      if (p === undefined) throw unknownProfileError(store, name);
      apply(p);
      return p;
    },
    warnTo(ui),
  );
  ui.success(`profile "${name}": ${which} ${which === 'api-key' ? `set to ${maskSecret(result.apiKey ?? '')}` : 'updated'} (${describeProfile(result)})`);
}

async function settingChange(
  ctx: Context,
  name: string,
  which: SettingName,
  value: string | undefined,
  opts: { apiKeyStdin?: boolean | undefined; apiKeyFile?: string | undefined },
): Promise<(p: Profile) => void> {
  if (which === 'api-key') {
    if (value !== undefined) {
      // The value is not repeated: it may be the key, and this line may end up in a log.
      throw new UsageError('the API key is never taken as an argument (shell history, ps)', {
        hint: `Use \`msgr profile set ${name} api-key --api-key-stdin\` (piped), --api-key-file PATH, or leave both out to be asked on a terminal.`,
      });
    }
    // Check the profile exists before asking for a key.
    const { data } = loadStore(ctx);
    if (getProfile(data, name) === undefined) throw unknownProfileError(data, name);
    const key = await obtainKey(ctx, name, opts);
    return (p) => {
      p.apiKey = key;
    };
  }
  if (value === undefined) throw new UsageError(`no value for ${which}`, { hint: `msgr profile set ${name} ${which} VALUE (or msgr profile unset ${name} ${which})` });
  switch (which) {
    case 'account': {
      const v = checkText(value, 'account');
      return (p) => {
        p.account = v;
      };
    }
    case 'base-url': {
      const v = checkBaseUrl(value, 'base-url', (fixed) => `msgr profile set ${shellQuote(name)} base-url ${shellQuote(fixed)}`);
      return (p) => {
        p.baseUrl = v;
      };
    }
    case 'from': {
      const v = checkText(value, 'from');
      return (p) => {
        p.from = v;
      };
    }
    case 'channel': {
      const v = checkChannel(value, 'channel');
      return (p) => {
        p.channel = v;
      };
    }
    case 'default-country': {
      const v = await checkCountryCode(value, 'default-country');
      return (p) => {
        p.defaultCountry = v;
      };
    }
    case 'confirm': {
      const v = checkBool(value, 'confirm');
      return (p) => {
        if (v) p.confirm = true;
        else delete p.confirm;
      };
    }
    case 'ca-file': {
      const v = await checkCaFile(ctx, value, 'ca-file');
      return (p) => {
        p.caFile = v;
      };
    }
    case 'window': {
      // Checked as a send reads it from the profile: windows separated by spaces.
      const v = checkText(value, 'window');
      resolveSchedule({}, { name, window: v }, ctx.now().getTime());
      return (p) => {
        p.window = splitWindows(v).join(' ');
      };
    }
    case 'price-file': {
      const v = await checkPriceFile(ctx, value ?? '');
      return (p) => {
        p.priceFile = v;
      };
    }
    case 'tz': {
      const rule = parseZoneRule(checkText(value, 'tz'));
      if ('error' in rule) throw new UsageError(`tz: ${rule.error}`, { hint: 'Give an IANA zone (America/New_York), column:NAME (send-bulk), or auto.' });
      const v = zoneRuleText(rule);
      return (p) => {
        p.tz = v;
      };
    }
  }
}
