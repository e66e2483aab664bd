// The single executable file (`npm run build:exe`): dist/exe/msgr-<platform>-<arch>, Node's own
// `node --build-sea` (Node 25.5+) applied to the Node that runs the build, so the platform and
// the Node inside are that Node's. Its main script is bin/sea.cjs; every file of dist/ (the
// bundle, the vendor bundles with the phone metadata, the workers, the help text) is a plain
// asset of the same name, read when needed, never a file beside the binary. Not `useVfs`: it
// breaks buffered write streams in Node 26.10, which the journal and the reports use.
//
// V8 code caches: Node's `useCodeCache` covers the main script only, and keeps only what V8
// compiles before it runs, so the bundles are compiled with the caches the dist/ build made for
// this same Node (scripts/build/code-cache.mjs), as assets `v8-cache/<build id>`. Measured on
// Node 26.10.0 (docs/performance-history.md, "The single executable file"): `send --dry-run` 1.41-1.48x
// `node -e 0` with them, 1.53-1.77x with the bundle as the main script under `useCodeCache`.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { basename, join, relative, resolve } from 'node:path';

/** The binary's file name for the Node that runs the build. */
export function exeName() {
  return `msgr-${process.platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`;
}

/** Why a Node of this version cannot build the binary, with what to run instead; undefined when it can. */
export function exeNodeProblem(version = process.versions.node) {
  const [major, minor] = version.split('.').map(Number);
  if (major > 25 || (major === 25 && minor >= 5)) return undefined;
  return [
    `build:exe: Node ${version} cannot build the single executable file: \`node --build-sea\` is in Node 25.5 and later, and the file carries the Node that builds it.`,
    'Build it with Node 26 from npm, which leaves this machine\'s Node as it is:',
    '  npx -y node@26 scripts/build.mjs --exe',
    'or install Node 26 into a folder of its own and put it first on PATH for the build:',
    '  npm install --no-save --prefix /tmp/node26 node@26 && PATH=/tmp/node26/node_modules/.bin:$PATH npm run build:exe',
  ].join('\n');
}

function listFiles(dir, skip) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (skip.includes(p)) continue;
    if (statSync(p).isDirectory()) out.push(...listFiles(p, skip));
    else out.push(p);
  }
  return out;
}

/**
 * Builds dist/exe/<exeName()> and its SHA-256 file from the built `dist` (the package manifest
 * beside it gives --version). Returns the binary's path.
 */
export function buildExe(dist, { log = console.error } = {}) {
  const started = performance.now();
  const out = join(dist, 'exe');
  const exe = join(out, exeName());
  const caches = join(dist, 'cache', `v8-${process.versions.v8}`);
  const assets = { 'package.json': resolve(dist, '..', 'package.json') };
  for (const file of listFiles(dist, [join(dist, 'cache'), out])) assets[relative(dist, file).split(/[\\/]/).join('/')] = file;
  if (existsSync(caches)) {
    // <bundle>.<build id>.<install folder>.bin: a cache belongs to one build of one bundle.
    for (const name of readdirSync(caches)) {
      const build = /\.([0-9a-f]+)\.[0-9a-f]+\.bin$/.exec(name);
      if (build !== null) assets[`v8-cache/${build[1]}`] = join(caches, name);
    }
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'msgr-exe-'));
  try {
    const config = join(scratch, 'sea-config.json');
    writeFileSync(config, JSON.stringify({
      main: resolve(dist, '..', 'bin', 'sea.cjs'),
      mainFormat: 'commonjs',
      output: exe,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      // The binary is msgr, not Node: NODE_OPTIONS (set for some other program) never changes it.
      execArgvExtension: 'none',
      assets,
    }, null, 2));
    try {
      execFileSync(process.execPath, ['--build-sea', config], { cwd: scratch, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      throw new Error(`build:exe: node --build-sea failed: ${String(err.stderr || err.stdout || err.message).trim()}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  chmodSync(exe, 0o755);
  // The binary answers for itself before it is called built.
  const { version } = JSON.parse(readFileSync(assets['package.json'], 'utf8'));
  const said = execFileSync(exe, ['--version'], { encoding: 'utf8', env: {} });
  if (said !== `${version}\n`) throw new Error(`build:exe: ${exe} --version said ${JSON.stringify(said)}, not ${version}`);
  const sha = createHash('sha256').update(readFileSync(exe)).digest('hex');
  // The format of `sha256sum`: `sha256sum -c msgr-linux-x64.sha256` in the binary's folder checks it.
  writeFileSync(`${exe}.sha256`, `${sha}  ${basename(exe)}\n`);
  const mb = (statSync(exe).size / 1e6).toFixed(1);
  log(`build:exe: ${relative(process.cwd(), exe)} (${mb} MB, Node ${process.versions.node}, ${process.platform}-${process.arch}) in ${((performance.now() - started) / 1000).toFixed(1)} s\nbuild:exe: SHA-256 ${sha} (${relative(process.cwd(), exe)}.sha256)`);
  return exe;
}
