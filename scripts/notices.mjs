// Writes THIRD-PARTY-NOTICES.md: the licence of every package dist/ carries inside its bundles
// (the runtime packages and what they depend on). The published package has no dependencies of
// its own to install, so their notices travel in this file (docs/design.md).
// Usage: node scripts/notices.mjs [--check]   (--check: exit 1 when the file is out of date)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const BUNDLED = ['chalk', 'commander', 'conf', 'countries-and-timezones', 'csv-parse', 'libphonenumber-js', 'ora', 'undici', 'zod'];

function manifest(name) {
  return JSON.parse(readFileSync(join('node_modules', name, 'package.json'), 'utf8'));
}

export function closure(roots = BUNDLED) {
  const seen = new Map();
  const visit = (name) => {
    if (seen.has(name)) return;
    const m = manifest(name);
    seen.set(name, m);
    for (const dep of Object.keys(m.dependencies ?? {})) visit(dep);
  };
  for (const r of roots) visit(r);
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function licenceText(name) {
  const dir = join('node_modules', name);
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  return file !== undefined ? readFileSync(join(dir, file), 'utf8').trim() : undefined;
}

export function render() {
  const parts = ['# Third-party notices', '', 'dist/ bundles the following packages. Each is used under the licence below.', ''];
  for (const m of closure()) {
    const text = licenceText(m.name);
    parts.push(`## ${m.name}@${m.version} (${typeof m.license === 'string' ? m.license : 'see below'})`, '');
    parts.push(text !== undefined ? ['```', text, '```'].join('\n') : `No licence file is shipped; package.json says: ${JSON.stringify(m.license ?? null)}.`, '');
  }
  // Data, not a package: send windows' region map (src/schedule/region-zones-data.ts, made by
  // scripts/region-zones.mjs from libphonenumber's resources/timezones/map_data.txt).
  parts.push('## libphonenumber time-zone map (Apache-2.0)', '', 'dist/vendor/region-zones.cjs holds data derived from resources/timezones/map_data.txt of github.com/google/libphonenumber (commit f7e3e88c92b905c8d6edb81f336dbe25edc05b52), Copyright (C) 2012 The Libphonenumber Authors, used under the Apache License, Version 2.0:', '');
  parts.push(['```', readFileSync(join(import.meta.dirname, 'build', 'libphonenumber-LICENSE.txt'), 'utf8').trim(), '```'].join('\n'), '');
  return `${parts.join('\n').trimEnd()}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = render();
  if (process.argv.includes('--check')) {
    const current = existsSync('THIRD-PARTY-NOTICES.md') ? readFileSync('THIRD-PARTY-NOTICES.md', 'utf8') : '';
    if (current !== text) {
      console.error('THIRD-PARTY-NOTICES.md is out of date: run node scripts/notices.mjs');
      process.exit(1);
    }
  } else {
    writeFileSync('THIRD-PARTY-NOTICES.md', text);
  }
}
