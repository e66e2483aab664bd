// Every third-party package in a bundle of its own (dist/vendor/<name>.cjs), required the first
// time our code reads one of its exports, so `send --dry-run` never compiles undici, zod or
// libphonenumber-js's code, and a run without colour never loads chalk. Measured against one
// bundle with everything (`npm run bench -- --only startup --tricks`; docs/performance.md):
// `send --dry-run` 18 % faster on Node 20, 21 % on 24, 28 % on 26 (2026-11-24).
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The vendor bundles. `imports`: the specifiers our code uses for it. `entry`: what the bundle
 * exports: a package used through named imports exports its namespace; one used through its
 * default export exports that value itself as module.exports (what Node's interop, which esbuild
 * follows for our "type": "module" sources, reads as the default). `shape`: what the build checks
 * one export to be. `same`: a package whose module the bundle must read as, value for value.
 */
export function vendorTable() {
  return [
    // The numbering plans (~157 KB of JSON) as strings for JSON.parse(), which V8 reads several
    // times faster than the same data as a JavaScript object literal (what esbuild makes of a
    // .json file): on Node 26 with its own compile cache, 7-10 ms of `send --dry-run` as a literal.
    // Each country's plan (245 of them) is parsed the first time it is read: a send to one
    // number reads the plans of its calling code only (docs/performance-history.md: "What
    // start-up costs"). The build checks that the object reads as the package's own (`same`).
    { name: 'phone-metadata', imports: ['libphonenumber-js/max/metadata'], entry: metadataModule(), shape: ['countries', 'object'], same: 'libphonenumber-js/max/metadata' },
    // libphonenumber-js reads the same metadata object, not a second copy.
    { name: 'phone', imports: ['libphonenumber-js/max'], entry: "export * from 'libphonenumber-js/max';", shape: ['parsePhoneNumberFromString', 'function'], plugins: [external(/metadata\.max\.json(\.js)?$/, './phone-metadata.cjs')] },
    // The countries' time zones (--tz auto), 37 KB: loaded only when a row's zone is looked up.
    { name: 'countries-and-timezones', imports: ['countries-and-timezones'], entry: "export * from 'countries-and-timezones';", shape: ['getCountry', 'function'] },
    // The numbering plan's time zones by number prefix (--tz auto; scripts/region-zones.mjs), 25 KB
    // of strings: our data, but a bundle of its own so that only a lookup reads it.
    { name: 'region-zones', own: 'src/schedule/region-zones-data.ts', shape: ['PREFIXES', 'string'] },
    { name: 'csv-parse', imports: ['csv-parse'], entry: "export * from 'csv-parse';", shape: ['Parser', 'function'] },
    { name: 'zod', imports: ['zod'], entry: "export * from 'zod';", shape: ['z', 'object'] },
    { name: 'chalk', imports: ['chalk'], entry: "export * from 'chalk';", shape: ['Chalk', 'function'] },
    { name: 'ora', imports: ['ora'], entry: "module.exports = require('ora').default;", shape: [undefined, 'function'] },
    { name: 'conf', imports: ['conf'], entry: "module.exports = require('conf').default;", shape: [undefined, 'function'] },
    // Our own wrapper of undici's internals (it has no state of ours), bundled with undici.
    { name: 'undici', own: 'src/http/undici.ts', shape: ['Agent', 'function'] },
  ];
}

/** libphonenumber-js/max/metadata's JSON text, the file require() resolves it to. */
function metadataJson() {
  return readFileSync(createRequire(import.meta.url).resolve('libphonenumber-js/max/metadata'), 'utf8');
}

/**
 * The metadata as a module: its `countries` an object whose properties parse their plan when
 * first read, then hold it as a plain property, as JSON.parse() would have made it.
 */
function metadataModule() {
  const metadata = JSON.parse(metadataJson());
  const plans = Object.fromEntries(Object.entries(metadata.countries).map(([country, plan]) => [country, JSON.stringify(plan)]));
  const rest = { ...metadata, countries: {} };
  return `const plans = ${JSON.stringify(plans)};
const countries = {};
for (const country of Object.keys(plans)) {
  Object.defineProperty(countries, country, { enumerable: true, configurable: true, get() {
    const plan = JSON.parse(plans[country]);
    Object.defineProperty(countries, country, { value: plan, enumerable: true, writable: true, configurable: true });
    return plan;
  } });
}
module.exports = JSON.parse(${JSON.stringify(JSON.stringify(rest))});
module.exports.countries = countries;`;
}

function external(filter, path) {
  return { name: `external-${path}`, setup: (b) => b.onResolve({ filter }, () => ({ path, external: true })) };
}

/**
 * Checks that each bundle in `dir` exports what our code reads from it (a wrong interop shape
 * would only show when that code path runs), and lists the named exports of each for
 * vendorExternals().
 */
export function probeVendors(dir, vendors) {
  const probe = JSON.parse(execFileSync(process.execPath, ['-e', `
    const names = {}, shapes = {}, differ = [];
    for (const [n, key, same] of ${JSON.stringify(vendors.map((v) => [v.name, v.shape[0] ?? null, v.same ?? null]))}) {
      const m = require(${JSON.stringify(resolve(dir))} + '/' + n + '.cjs');
      if (m !== null && typeof m === 'object' && m.__esModule === true) names[n] = Object.keys(m).filter((k) => k !== '__esModule');
      shapes[n] = typeof (key === null ? m : m[key]);
      if (same !== null && JSON.stringify(m) !== JSON.stringify(require(same))) differ.push(n);
    }
    console.log(JSON.stringify({ names, shapes, differ }));`], { encoding: 'utf8' }));
  const wrong = vendors.filter((v) => probe.shapes[v.name] !== v.shape[1]);
  if (wrong.length > 0) throw new Error(`build: vendor bundles export the wrong shape: ${wrong.map((v) => `${v.name}${v.shape[0] !== undefined ? `.${v.shape[0]}` : ''} is ${probe.shapes[v.name]}`).join(', ')}`);
  if (probe.differ.length > 0) throw new Error(`build: vendor bundles read otherwise than their package: ${probe.differ.join(', ')}`);
  return probe.names;
}

/**
 * Resolves our code's imports of third-party packages to the vendor bundles. A bundle used through
 * named imports is required when our code first reads one of its exports, not when the module that
 * imports it is initialised: esbuild reads named imports as properties at each use, and the stand-in
 * module below has a getter per export (names from probeVendors()). So `send` loads
 * libphonenumber-js only for a number the fast path cannot answer, and zod only where it is used.
 * A bundle whose module.exports is a default export (ora, conf, the metadata) is required as is.
 */
export function vendorExternals(vendors, prefix, exportNames) {
  const own = new Map(vendors.filter((v) => v.own !== undefined).map((v) => [resolve(v.own), v.name]));
  const byImport = new Map(vendors.flatMap((v) => (v.imports ?? []).map((i) => [i, v.name])));
  return {
    name: 'vendor-externals',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (args.namespace === 'vendor') return { path: args.path, external: true };
        const bundle = byImport.get(args.path) ?? (args.path.startsWith('.') ? own.get(resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts')) : undefined);
        if (bundle !== undefined) return { path: `${prefix}${bundle}.cjs`, namespace: 'vendor', pluginData: { bundle } };
        if (!args.path.startsWith('.') && !args.path.startsWith('node:') && args.path !== 'commander' && !args.importer.includes('node_modules')) {
          return { errors: [{ text: `${args.path}: third-party import without a vendor bundle (add it in scripts/build/vendors.mjs)` }] };
        }
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => {
        const names = exportNames[args.pluginData.bundle];
        const path = JSON.stringify(args.path);
        const contents = names === undefined
          ? `module.exports = require(${path});`
          : `let loaded;\nconst load = () => (loaded ??= require(${path}));\nfor (const name of ${JSON.stringify(names)}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`;
        return { contents, loader: 'js', resolveDir: process.cwd() };
      });
    },
  };
}
