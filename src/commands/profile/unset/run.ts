// `msgr profile unset`: one setting taken off a profile.
import type { Context } from '../../../context.js';
import { createUi } from '../../../output/ui.js';
import { getProfile, unknownProfileError, updateStore } from '../../../profiles/profile-file.js';
import { describeProfile, settingName, warnTo } from '../shared.js';
import type { UnsetOptions } from './options.js';

export async function runUnset(ctx: Context, name: string, setting: string, opts: UnsetOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const which = settingName(setting);
  const field = ({ account: 'account', 'base-url': 'baseUrl', from: 'from', channel: 'channel', 'default-country': 'defaultCountry', confirm: 'confirm', 'api-key': 'apiKey', 'ca-file': 'caFile', window: 'window', tz: 'tz', 'price-file': 'priceFile' } as const)[which];
  const { result } = await updateStore(
    ctx,
    (store) => {
      const p = getProfile(store, name);
      if (p === undefined) throw unknownProfileError(store, name);
      delete p[field];
      return p;
    },
    warnTo(ui),
  );
  ui.success(`profile "${name}": ${which} removed (${describeProfile(result)})`);
}
