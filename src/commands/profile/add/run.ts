// `msgr profile add`: a profile saved, its key read from stdin, a file or a hidden prompt, never an argument.
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { createUi } from '../../../output/ui.js';
import { checkBaseUrl } from '../../../profiles/base-url.js';
import { msgrCommand } from '../../../output/shell.js';
import { canPrompt, promptYesNo } from '../../../profiles/prompt.js';
import { checkProfileName, getProfile, loadStore, profileNames, updateStore, type Profile } from '../../../profiles/profile-file.js';
import { checkCaFile, checkChannel, checkCountryCode, checkText, describeProfile, obtainKey, warnIncomplete, warnTo } from '../shared.js';
import type { AddOptions } from './options.js';

export async function runAdd(ctx: Context, name: string, opts: AddOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  checkProfileName(name);
  const profile: Profile = {};
  if (opts.account !== undefined) profile.account = checkText(opts.account, '--account');
  if (opts.baseUrl !== undefined) profile.baseUrl = checkBaseUrl(opts.baseUrl, '--base-url', (fixed) => msgrCommand(ctx.argv, { set: ['--base-url', fixed] }));
  if (opts.from !== undefined) profile.from = checkText(opts.from, '--from');
  if (opts.channel !== undefined) profile.channel = checkChannel(opts.channel, '--channel');
  if (opts.caFile !== undefined) profile.caFile = await checkCaFile(ctx, opts.caFile, '--ca-file');
  if (opts.defaultCountry !== undefined) profile.defaultCountry = await checkCountryCode(opts.defaultCountry, '--default-country');
  if (opts.confirm === true) profile.confirm = true;

  // Asked before the key, so nobody types a key only to be refused.
  let replace = opts.force === true;
  const existing = getProfile(loadStore(ctx, warnTo(ui)).data, name);
  if (existing !== undefined && !replace) {
    if (!canPrompt(ctx)) {
      throw new UsageError(`profile "${name}" already exists (${describeProfile(existing)})`, {
        hint: `Add --force to replace it, or change one setting with \`msgr profile set ${name} SETTING VALUE\`.`,
      });
    }
    replace = await promptYesNo(ctx, `Profile "${name}" already exists (${describeProfile(existing)}). Replace it?`);
    if (!replace) throw new UsageError(`profile "${name}" was not replaced`);
  }
  profile.apiKey = await obtainKey(ctx, name, opts);

  const { paths, data, result: madeDefault } = await updateStore(
    ctx,
    (store) => {
      // Re-checked inside the lock: another msgr may have added it since.
      if (getProfile(store, name) !== undefined && !replace) {
        throw new UsageError(`profile "${name}" already exists`, { hint: 'Add --force to replace it.' });
      }
      const first = profileNames(store).length === 0;
      store.profiles[name] = profile;
      const makeDefault = opts.default === true || first;
      if (makeDefault) store.default = name;
      return makeDefault;
    },
    warnTo(ui),
  );
  ui.success(`saved profile "${name}" (${describeProfile(profile)}) in ${paths.file}`);
  if (madeDefault) ui.info(`"${name}" is the default profile`);
  else if (data.default === undefined && profileNames(data).length > 1) ui.info(`there is no default profile: choose one with -p, or \`msgr profile use ${name}\``);
  if (profile.confirm === true) ui.info(`sends with "${name}" will ask for confirmation (or need --yes)`);
  warnIncomplete(ui, name, profile);
}
