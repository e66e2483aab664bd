// libphonenumber-js's metadata (the `max` set, ~160 KB of JSON for ~250 countries) as a module
// that parses one country's plan when it is first read: a send to one country never parses, nor
// even compiles as JavaScript, the other 249. The plans are in a data file beside the bundle
// (vendor/phone-metadata.data, ASCII, read in one call); the module holds where each one is.
// The object has the same keys and values in the same order (test/e2e/install-layout.test.ts).
// What it buys is measured by `npm run bench -- --only startup --tricks` (README, "Performance").
export const METADATA_JSON = 'node_modules/libphonenumber-js/metadata.max.json';

/** The module's source and its data file's contents. */
export function splitMetadata(json) {
  if (/[^\x20-\x7e\n]/.test(json)) throw new Error('build: libphonenumber-js metadata is no longer plain ASCII; phone-metadata.data assumes it');
  const meta = JSON.parse(json);
  let data = '';
  const index = {};
  for (const [code, plan] of Object.entries(meta.countries)) {
    const text = JSON.stringify(plan);
    index[code] = [data.length, data.length + text.length];
    data += `${text}\n`;
  }
  const fields = Object.entries(meta).map(([key, value]) => key === 'countries'
    ? `${JSON.stringify(key)}: lazyCountries(JSON.parse(${JSON.stringify(JSON.stringify(index))}))`
    : `${JSON.stringify(key)}: JSON.parse(${JSON.stringify(JSON.stringify(value))})`);
  // A Proxy over the index rather than a getter per country: defining 245 accessors costs more
  // (~0.7 ms) than everything else here. Each entry becomes its plan when first read.
  const module = `const data = require('node:fs').readFileSync(require('node:path').join(__dirname, 'phone-metadata.data'), 'utf8');
function lazyCountries(index) {
  const pending = new Set(Object.keys(index));
  const parse = (target, key) => {
    if (pending.delete(key)) {
      const [start, end] = target[key];
      target[key] = JSON.parse(data.slice(start, end));
    }
  };
  return new Proxy(index, {
    get(target, key) {
      parse(target, key);
      return target[key];
    },
    getOwnPropertyDescriptor(target, key) {
      parse(target, key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
  });
}
module.exports = {\n${fields.join(',\n')}\n};\n`;
  return { module, data };
}

/** The esbuild plugin that makes libphonenumber-js's metadata that module. */
export function metadataPlugin(split) {
  return {
    name: 'phone-metadata',
    setup(b) {
      b.onLoad({ filter: /libphonenumber-js[\\/]metadata\.max\.json$/ }, () => ({ contents: split.module, loader: 'js' }));
    },
  };
}
