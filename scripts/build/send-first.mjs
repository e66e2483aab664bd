// The `send-first` start-up trick (build/tricks.mjs): our code in two bundles instead of one.
//   msgr.cjs      main.ts, commander, the command table, and every module `msgr send` can load
//                 (its options and run, and whatever they import, at once or lazily).
//   commands.cjs  the modules only the other commands load, read the first time one of them runs.
// Each module exists once: a module of one bundle that imports a module of the other reaches it
// through a stand-in that asks the other bundle for it (`__first(id)` of msgr.cjs, `__later(id)` of
// commands.cjs), which initialises it on first use and hands over its exports (live getters), so
// classes, errors and module state are shared. msgr.cjs only ever reaches commands.cjs lazily
// (another command's `await import()`), so a send never reads it.
//
// Why: V8 reads, and deserialises from the code cache, a whole bundle before any of it runs, and
// the other commands (the campaign engine, the listener, the sandbox, the runs) are two thirds of
// our code. Measured in docs/performance-history.md: "What start-up costs", "Results on this machine".
import { relative, sep } from 'node:path';

const FIRST = 'msgr.cjs';
const LATER = 'commands.cjs';

/** `src/commands/<a command other than send>/…` (shared/ is not a command). */
const otherCommand = (path) => /^src\/commands\/(?!send\/|shared\/)[^/]+\//.test(path);
/** Lazily imported by a send only for --sandbox, which starts a sandbox in the process: not on a send's own path. */
const notASend = (path) => path.startsWith('src/sandbox/');

/**
 * The modules a send can load: everything main.ts imports, and every import, at once or lazy, on
 * the way from there, except the lazy ones of the other commands' folders and of the sandbox.
 */
export function sendModules(inputs, entry) {
  const seen = new Set();
  const todo = [entry];
  while (todo.length > 0) {
    const path = todo.pop();
    if (seen.has(path)) continue;
    seen.add(path);
    for (const imp of inputs[path]?.imports ?? []) {
      if (imp.external === true || !(imp.path in inputs)) continue;
      if (imp.kind === 'dynamic-import' && (otherCommand(path) || notASend(imp.path))) continue;
      todo.push(imp.path);
    }
  }
  return seen;
}

/**
 * Builds `options` (one entry point, an outfile in `dir`: the one-bundle build) as msgr.cjs and
 * commands.cjs in `dir`. `plugins` of `options` come first (the vendor bundles' stand-ins).
 * Returns the two files.
 */
export async function buildSendFirst(build, options, dir) {
  const entry = options.entryPoints[0];
  const probe = await build({ ...options, write: false, metafile: true });
  const inputs = probe.metafile.inputs;
  const own = (path) => !path.includes(':');
  const first = sendModules(inputs, entry);
  const later = new Set(Object.keys(inputs).filter((p) => own(p) && !first.has(p)));
  // The vendor bundles' stand-ins (`vendor:…`) are made again in each bundle: each requires the same file.
  const edges = (from, to) => new Set([...from].flatMap((p) => (inputs[p]?.imports ?? []).filter((i) => own(i.path) && to.has(i.path)).map((i) => i.path)));
  const askedOfFirst = [...edges(later, first)].sort();
  const askedOfLater = [...edges(first, later)].sort();
  const table = (paths) => `{${paths.map((p) => `${JSON.stringify(p)}: () => require(${JSON.stringify(`./${p}`)})`).join(',\n')}}`;

  await build({
    ...options,
    entryPoints: undefined,
    stdin: { contents: `export * from ${JSON.stringify(`./${entry}`)};\nconst modules = ${table(askedOfFirst)};\nexport function __first(id) { return modules[id](); }\n`, resolveDir: process.cwd(), loader: 'js', sourcefile: 'msgr-first.js' },
    outfile: `${dir}/${FIRST}`,
    plugins: [...(options.plugins ?? []), elsewhere(later, LATER, '__later')],
  });
  if (later.size > 0) {
    await build({
      ...options,
      entryPoints: undefined,
      stdin: { contents: `const modules = ${table(askedOfLater)};\nexport function __later(id) { return modules[id](); }\n`, resolveDir: process.cwd(), loader: 'js', sourcefile: 'commands.js' },
      outfile: `${dir}/${LATER}`,
      plugins: [...(options.plugins ?? []), elsewhere(first, FIRST, '__first')],
    });
  }
  return later.size > 0 ? [FIRST, LATER] : [FIRST];
}

/** Imports of the modules in `paths` become stand-ins that ask `bundle` for them through `fn`. */
function elsewhere(paths, bundle, fn) {
  const self = `./${bundle}`;
  return {
    name: `elsewhere-${bundle}`,
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.elsewhere === true || args.kind === 'entry-point') return undefined;
        if (args.namespace === 'elsewhere') return { path: self, external: true };
        const found = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: args.namespace, pluginData: { elsewhere: true } });
        if (found.errors.length > 0 || found.external || found.namespace !== 'file') return undefined;
        const path = relative(process.cwd(), found.path).split(sep).join('/');
        return paths.has(path) ? { path, namespace: 'elsewhere' } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'elsewhere' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(self)}).${fn}(${JSON.stringify(args.path)});`, loader: 'js' }));
    },
  };
}
