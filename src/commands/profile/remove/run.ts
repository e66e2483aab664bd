// `msgr profile remove`: a profile and its key deleted.
import type { Context } from '../../../context.js';
import { createUi } from '../../../output/ui.js';
import { getProfile, profileNames, unknownProfileError, updateStore } from '../../../profiles/profile-file.js';
import { warnTo } from '../shared.js';
import type { RemoveOptions } from './options.js';

export async function runRemove(ctx: Context, name: string, opts: RemoveOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const { data, result: wasDefault } = await updateStore(
    ctx,
    (store) => {
      if (getProfile(store, name) === undefined) throw unknownProfileError(store, name);
      delete store.profiles[name];
      const wasDefault = store.default === name;
      if (wasDefault) delete store.default;
      return wasDefault;
    },
    warnTo(ui),
  );
  ui.success(`removed profile "${name}"`);
  const left = profileNames(data);
  if (wasDefault && left.length > 1) ui.warn(`there is no default profile now: choose one with \`msgr profile use NAME\` (profiles: ${left.join(', ')})`);
  else if (wasDefault && left.length === 1) ui.info(`"${left[0] ?? ''}" is the only profile left; it is used when none is chosen`);
}
