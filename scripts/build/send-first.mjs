// The `send-first` start-up trick (build/tricks.mjs): our code in three bundles instead of one.
//   msgr.cjs        main.ts, commander, the command table, and every module a `msgr send` loads
//                   whatever its flags (its options and run, and whatever they import, at once or
//                   lazily).
//   send-flags.cjs  the modules a send loads only for a flag or a profile setting that needs them
//                   (FOR_A_FLAG: the send windows' and time zones' code), read when one is given.
//   commands.cjs    the modules only the other commands load, read the first time one of them runs.
// Each module exists once: a module of one bundle that imports a module of another reaches it
// through a stand-in that asks that bundle for it (`__first(id)` of msgr.cjs, `__flags(id)` of
// send-flags.cjs, `__later(id)` of commands.cjs), which initialises it on first use and hands over
// its exports (live getters), so classes, errors and module state are shared. msgr.cjs only ever
// reaches the other two lazily (an `await import()`), so a send without those flags reads neither.
//
// Why: V8 reads, and deserialises from the code cache, a whole bundle before any of it runs, and
// the other commands (the campaign engine, the listener, the sandbox, the runs) are two thirds of
// our code. Measured in docs/performance-history.md: "What start-up costs", "Results on this machine".
import { relative, sep } from 'node:path';

const FIRST = 'msgr.cjs';
const FLAGS = 'send-flags.cjs';
const LATER = 'commands.cjs';

/** `src/commands/<a command other than send>/…` (shared/ is not a command). */
const otherCommand = (path) => /^src\/commands\/(?!send\/|shared\/)[^/]+\//.test(path);
/** Lazily imported by a send only for --sandbox, which starts a sandbox in the process: not on a send's own path. */
const notASend = (path) => path.startsWith('src/sandbox/');
/**
 * What a send imports lazily only when a flag (or the profile's setting) asks for it: send
 * windows, time zones and deadlines (--window, --tz, --any-time, --not-before, --stop-at, a
 * profile's window or tz). A module of these that a send imports at once stays in msgr.cjs.
 */
export const FOR_A_FLAG = (path) => path.startsWith('src/schedule/') || path === 'src/commands/shared/send-windows.ts';

/**
 * The modules reached from `entry`: every import, at once or lazy, except the lazy ones of the
 * other commands' folders and of the sandbox, and the lazy ones `skipLazy` names.
 */
function reached(inputs, entry, skipLazy) {
  const seen = new Set();
  const todo = [entry];
  while (todo.length > 0) {
    const path = todo.pop();
    if (seen.has(path)) continue;
    seen.add(path);
    for (const imp of inputs[path]?.imports ?? []) {
      if (imp.external === true || !(imp.path in inputs)) continue;
      if (imp.kind === 'dynamic-import' && (otherCommand(path) || notASend(imp.path) || skipLazy(imp.path))) continue;
      todo.push(imp.path);
    }
  }
  return seen;
}

/** The modules any send can load: everything main.ts imports, at once or lazily, on the way from there. */
export function sendModules(inputs, entry) {
  return reached(inputs, entry, () => false);
}

/** The modules every send can load, whatever its flags: sendModules() less FOR_A_FLAG's lazy imports. */
export function everySendModules(inputs, entry) {
  return reached(inputs, entry, FOR_A_FLAG);
}

/**
 * Builds `options` (one entry point, an outfile in `dir`: the one-bundle build) as msgr.cjs,
 * send-flags.cjs and commands.cjs in `dir`. `plugins` of `options` come first (the vendor
 * bundles' stand-ins). Returns the files.
 */
export async function buildSendFirst(build, options, dir) {
  const entry = options.entryPoints[0];
  const probe = await build({ ...options, write: false, metafile: true });
  const inputs = probe.metafile.inputs;
  const own = (path) => !path.includes(':');
  const first = everySendModules(inputs, entry);
  const anySend = sendModules(inputs, entry);
  const flags = new Set([...anySend].filter((p) => own(p) && !first.has(p)));
  const later = new Set(Object.keys(inputs).filter((p) => own(p) && !anySend.has(p)));
  const parts = [
    { file: FIRST, fn: '__first', modules: first },
    { file: FLAGS, fn: '__flags', modules: flags },
    { file: LATER, fn: '__later', modules: later },
  ].filter((p) => p.file === FIRST || p.modules.size > 0);
  // The vendor bundles' stand-ins (`vendor:…`) are made again in each bundle: each requires the same file.
  const edges = (from, to) => [...from].flatMap((p) => (inputs[p]?.imports ?? []).filter((i) => own(i.path) && to.has(i.path)).map((i) => i.path));
  const table = (paths) => `{${paths.map((p) => `${JSON.stringify(p)}: () => require(${JSON.stringify(`./${p}`)})`).join(',\n')}}`;
  for (const part of parts) {
    const others = parts.filter((p) => p !== part);
    const asked = [...new Set(others.flatMap((o) => edges(o.modules, part.modules)))].sort();
    const head = part.file === FIRST ? `export * from ${JSON.stringify(`./${entry}`)};\n` : '';
    await build({
      ...options,
      entryPoints: undefined,
      stdin: { contents: `${head}const modules = ${table(asked)};\nexport function ${part.fn}(id) { return modules[id](); }\n`, resolveDir: process.cwd(), loader: 'js', sourcefile: part.file.replace(/\.cjs$/, '.js') },
      outfile: `${dir}/${part.file}`,
      plugins: [...(options.plugins ?? []), ...others.map((o) => elsewhere(o.modules, o.file, o.fn))],
    });
  }
  return parts.map((p) => p.file);
}

/** Imports of the modules in `paths` become stand-ins that ask `bundle` for them through `fn`. */
function elsewhere(paths, bundle, fn) {
  const self = `./${bundle}`;
  // A namespace of its own: each bundle built has a stand-in plugin for each of the others.
  const namespace = `elsewhere${fn}`;
  return {
    name: `elsewhere-${bundle}`,
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.elsewhere === true || args.kind === 'entry-point') return undefined;
        if (args.namespace === namespace) return { path: self, external: true };
        const found = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: args.namespace, pluginData: { elsewhere: true } });
        if (found.errors.length > 0 || found.external || found.namespace !== 'file') return undefined;
        const path = relative(process.cwd(), found.path).split(sep).join('/');
        return paths.has(path) ? { path, namespace } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace }, (args) => ({ contents: `module.exports = require(${JSON.stringify(self)}).${fn}(${JSON.stringify(args.path)});`, loader: 'js' }));
    },
  };
}
