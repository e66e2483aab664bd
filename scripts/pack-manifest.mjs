// The packed package.json has no `prepare` script: it builds dist/ in a checkout (`npm ci`),
// while the tarball already carries dist/, and npm would warn about the script on every install
// of the tarball. `prepack` saves package.json aside and removes the script; `postpack` puts it
// back (and so does the next `prepack`, should a pack have died in between). test/e2e/package.test.ts
// runs `npm run prepack && npm pack --ignore-scripts && npm run postpack`, as npm pack would.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const SAVED = 'package.json.packing';
const step = process.argv[2];
if (existsSync(SAVED)) renameSync(SAVED, 'package.json');
if (step === 'strip') {
  const text = readFileSync('package.json', 'utf8');
  const manifest = JSON.parse(text);
  writeFileSync(SAVED, text);
  delete manifest.scripts.prepare;
  // Replaced in one rename: a msgr starting meanwhile (tests) reads one whole file or the other.
  writeFileSync('package.json.next', `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync('package.json.next', 'package.json');
}
