// `msgr profile use`: the default profile chosen.
import type { Context } from '../../../context.js';
import { createUi } from '../../../output/ui.js';
import { getProfile, unknownProfileError, updateStore } from '../../../profiles/profile-file.js';
import { describeProfile, warnTo } from '../shared.js';
import type { UseOptions } from './options.js';

export async function runUse(ctx: Context, name: string, opts: UseOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const { result } = await updateStore(
    ctx,
    (store) => {
      const p = getProfile(store, name);
      if (p === undefined) throw unknownProfileError(store, name);
      store.default = name;
      return p;
    },
    warnTo(ui),
  );
  ui.success(`"${name}" is now the default profile (${describeProfile(result)})`);
}
