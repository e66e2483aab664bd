// The start-up tricks the build can switch (MSGR_BUILD_TRICKS=name=on|off,...), each on by
// default only on the Node versions where `npm run bench -- --only startup --tricks` measures it
// buying at least 10 % of a start-up figure (docs/performance.md has the figures).
const node = Number(process.versions.node.split('.')[0]);

export const TRICKS = {
  // build/vendors.mjs: a bundle per third-party package, loaded on first use.
  'vendor-bundles': true,
  // build/send-first.mjs: what every `msgr send` can load in msgr.cjs, what it loads only for a
  // flag (the schedule's code) in send-flags.cjs, the other commands' modules in commands.cjs,
  // each read only when needed. Measured at 5-7.5 % of the dry run (docs/
  // performance-history.md: "Results on this machine"), under the 10 % line, and kept: it is what stops a
  // send's start from growing with every other command's code (docs/design.md: "Choices").
  'send-first': true,
  // build/code-cache.mjs and bin/code-cache.cjs: V8 code caches made by the build, instead of
  // none (Node 20) or Node's own compile cache (Node 22.1+).
  'code-cache': true,
  // src/http/single-request.ts: undici's WebAssembly compiled by V8's baseline compiler only.
  // On Node 24 and 26 it costs time instead.
  'liftoff-only': node < 22,
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
