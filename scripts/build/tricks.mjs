// The start-up tricks the build can switch (MSGR_BUILD_TRICKS=name=on|off,...), each on by
// default only where `npm run bench -- --only startup --tricks` measures it paying at least 10 %
// of a start-up figure (README, "Performance", where the figures are).
const node = Number(process.versions.node.split('.')[0]);

export const TRICKS = {
  // build/vendors.mjs: a bundle per third-party package, loaded on first use.
  'vendor-bundles': true,
  // build/phone-metadata.mjs: one country's numbering plan parsed at a time.
  'phone-metadata': true,
  // build/patches.mjs: commander's child_process loaded when first used.
  'commander-edit': true,
  // build/patches.mjs: undici's HTTP/2 client and node:assert loaded when first used.
  'undici-edit': true,
  // build/code-cache.mjs and bin/code-cache.cjs: V8 code caches made by the build.
  'code-cache': node < 22,
};

/** The defaults, with MSGR_BUILD_TRICKS applied. */
export function chosenTricks(setting = process.env.MSGR_BUILD_TRICKS ?? '') {
  const tricks = { ...TRICKS };
  for (const item of setting.split(',').filter(Boolean)) {
    const [name, value] = item.split('=');
    if (!(name in tricks) || !['on', 'off'].includes(value)) throw new Error(`build: MSGR_BUILD_TRICKS: ${item}? (name=on|off; names: ${Object.keys(TRICKS).join(', ')})`);
    tricks[name] = value === 'on';
  }
  return tricks;
}
