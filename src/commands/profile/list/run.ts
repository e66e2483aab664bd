// `msgr profile list`: every profile, keys masked to their last 4 characters; data on stdout.
import type { Context } from '../../../context.js';
import { maskSecret } from '../../../output/sanitize.js';
import { createUi } from '../../../output/ui.js';
import { getProfile, loadStore, profileNames, type StoreData } from '../../../profiles/profile-file.js';
import { profileTable, warnTo } from '../shared.js';
import type { ListOptions } from './options.js';

interface ListedProfile {
  name: string;
  default: boolean;
  account: string | null;
  baseUrl: string | null;
  apiKey: string | null;
  from: string | null;
  channel: string | null;
  defaultCountry: string | null;
  confirm: boolean;
}

export function listProfiles(data: StoreData): ListedProfile[] {
  return profileNames(data).map((name) => {
    const p = getProfile(data, name) ?? {};
    return {
      name,
      default: data.default === name,
      account: p.account ?? null,
      baseUrl: p.baseUrl ?? null,
      apiKey: p.apiKey !== undefined ? maskSecret(p.apiKey) : null,
      from: p.from ?? null,
      channel: p.channel ?? null,
      defaultCountry: p.defaultCountry ?? null,
      confirm: p.confirm === true,
    };
  });
}

export function runList(ctx: Context, opts: ListOptions): void {
  const ui = createUi(ctx, opts);
  const { paths, data } = loadStore(ctx, warnTo(ui));
  const rows = listProfiles(data);
  if (opts.json === true) {
    ctx.stdout.write(`${JSON.stringify({ configFile: paths.file, default: data.default ?? null, profiles: rows }, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    ui.info(`no profiles yet (${paths.file}); add one with: msgr profile add NAME --base-url https://... --account REF`);
    return;
  }
  const table = [
    ['', 'NAME', 'ACCOUNT', 'BASE URL', 'API KEY', 'FROM', 'CHANNEL', 'COUNTRY', ''],
    ...rows.map((r) => [r.default ? '*' : '', r.name, r.account ?? '-', r.baseUrl ?? '-', r.apiKey ?? '-', r.from ?? '-', r.channel ?? '-', r.defaultCountry ?? '-', r.confirm ? 'confirm' : '']),
  ];
  ctx.stdout.write(profileTable(ctx, table, 2));
  if (data.default === undefined && rows.length > 1) ui.info('no default profile: sends need -p NAME or MSGR_PROFILE (msgr profile use NAME sets one)');
}
