// `npm run docs`: writes the manual that comes from the code (src/reference/generate.ts): the
// command reference in docs/commands/, the man pages in docs/man/ (and package.json's "man"
// list), and the exit-code tables between their markers in README.md and docs/contract.md.
// `npm run docs -- --check` writes nothing and exits 1 when a file differs (test/unit/reference/generate.test.ts
// checks the same in `npm test`).
//
// The generator is TypeScript that imports the program (buildProgram), so it is bundled here as
// the build bundles msgr, with the same defines, into node_modules/.cache and run from there.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readHelpTopics } from './build/help-topics.mjs';

const root = resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');
const out = join(root, 'node_modules', '.cache', 'msgr-docs', `generate-${process.pid}.mjs`);
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
mkdirSync(join(out, '..'), { recursive: true });
try {
  await build({
    entryPoints: [join(root, 'src', 'reference', 'generate.ts')],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    define: { __MSGR_VERSION__: JSON.stringify(version), __MSGR_HELP_TOPICS__: JSON.stringify(readHelpTopics(root)) },
  });
  const { generate } = await import(pathToFileURL(out).href);
  const { files, folders, man } = generate(root);
  const stale = [];
  for (const [path, text] of files) {
    const at = join(root, path);
    if (existsSync(at) && readFileSync(at, 'utf8') === text) continue;
    stale.push(path);
    if (!check) {
      mkdirSync(join(at, '..'), { recursive: true });
      writeFileSync(at, text);
    }
  }
  for (const folder of folders) {
    for (const name of existsSync(join(root, folder)) ? readdirSync(join(root, folder)) : []) {
      if (files.has(`${folder}/${name}`)) continue;
      stale.push(`${folder}/${name} (left over)`);
      if (!check) rmSync(join(root, folder, name));
    }
  }
  // Only the "man" entry of package.json is the generator's.
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (JSON.stringify(manifest.man) !== JSON.stringify(man)) {
    stale.push('package.json ("man")');
    if (!check) {
      const next = {};
      for (const [k, v] of Object.entries(manifest)) {
        if (k !== 'man') next[k] = v;
        if (k === 'bin') next.man = man;
      }
      if (next.man === undefined) next.man = man;
      writeFileSync(join(root, 'package.json'), `${JSON.stringify(next, null, 2)}\n`);
    }
  }
  if (check && stale.length > 0) {
    console.error(`docs: out of date, run \`npm run docs\`:\n${stale.map((s) => `  ${s}`).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.error(stale.length > 0 ? `docs: wrote ${stale.length} file(s):\n${stale.map((s) => `  ${s}`).join('\n')}` : `docs: up to date (${files.size} files)`);
  }
} finally {
  rmSync(out, { force: true });
}
