// No import cycle anywhere in src/: the imports of every module (static, type-only and dynamic)
// form a graph without loops, so a module can be read, tested and loaded without the modules that
// use it (docs/design.md); nor between folders (a file directly in src/ counts as one), so a
// folder can be too. No module outside
// src/commands/ imports a command or main.ts, except the reference generator, which builds the
// program to walk its command tree. The order of the engine's folders and its front doors are lint rules
// (eslint.config.js, ENGINE_ORDER and DOORS); lint does not see dynamic imports, so this checks
// that those of the engine from outside it go through a door too. No folder holds more than
// MAX_FILES files. No name is used twice for two things (docs/design.md: "The folders, and their order"),
// and the unit tests sit where the code they prove sits (docs/contributing.md: "Where a test goes,
// and what it is called").
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../support/cli.js';

const SRC = join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Files a folder of src/ may hold: past this, a newcomer no longer finds a file in one guess, and
 * the folder holds more than one concept (split it by concept into subfolders).
 */
const MAX_FILES = 12;

/** Every folder under `dir`, at any depth. */
function allFolders(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? [path, ...allFolders(path)] : [];
  });
}

/**
 * The module specifiers of a file, read by the compiler's parser: import and export declarations,
 * `import('…')` calls and `import('…')` types (`all`), and those of `import('…')` calls alone
 * (`dynamic`). (ts.preProcessFile's quick scan misses imports after a regular expression
 * literal.) Each file is parsed once for the four tests that read the graph: parsing src/ four
 * times took 1.4 s of this file's 4.8 s of CPU (docs/performance.md: "npm test").
 */
const parsed = new Map<string, { all: string[]; dynamic: string[] }>();
function specifiers(file: string): { all: string[]; dynamic: string[] } {
  const known = parsed.get(file);
  if (known !== undefined) return known;
  const all: string[] = [];
  const dynamic: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) all.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) {
      all.push(node.arguments[0].text);
      dynamic.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) all.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
  const found = { all, dynamic };
  parsed.set(file, found);
  return found;
}

/** Each module of src/ → the modules of src/ it imports (`./x.js` is `./x.ts`); `dynamic`: only those of `import()`. */
function importGraph(dynamic = false): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const targets = specifiers(file)[dynamic ? 'dynamic' : 'all']
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    graph.set(relative(ROOT, file), targets.map((t) => relative(ROOT, t)));
  }
  return graph;
}

/** The first cycle found, as the modules along it (the first one repeated at the end), or undefined. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (node: string): string[] | undefined => {
    if (onPath.has(node)) return [...path.slice(path.indexOf(node)), node];
    if (done.has(node)) return undefined;
    path.push(node);
    onPath.add(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/**
 * A module's node at `depth` in the graph of folders: its folder at that depth (1: `src/bulk`, 2:
 * `src/bulk/input`). A file directly in src/ (context.ts, errors.ts, main.ts, the leaves) is a
 * node of its own at depth 1, so a loop through one (src/context.ts → src/http/ → src/output/ →
 * src/context.ts) is a loop between folders too. Undefined for a module that does not sit that
 * deep otherwise (`src/bulk/runs-door.ts` at 2): files are the module graph's.
 */
function folderAt(module: string, depth: number): string | undefined {
  const parts = module.split('/');
  if (parts.length - 2 >= depth) return parts.slice(0, depth + 1).join('/');
  return depth === 1 && parts.length === 2 ? module : undefined;
}

/** The folders at `depth` → the other folders at that depth their modules import. */
function folderGraph(graph: ReadonlyMap<string, readonly string[]>, depth: number): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const a = folderAt(from, depth);
    if (a === undefined) continue;
    const edges = folders.get(a) ?? new Set<string>();
    folders.set(a, edges);
    for (const t of targets) {
      const b = folderAt(t, depth);
      if (b !== undefined && b !== a) edges.add(b);
    }
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges].sort()]));
}

test('no import cycle in src/', () => {
  const graph = importGraph();
  // The walk sees the imports: main.ts's, a type-only one and a dynamic one.
  assert.ok(graph.size > 100, `${graph.size} modules`);
  assert.ok(graph.get('src/main.ts')?.includes('src/context.ts'));
  assert.ok(graph.get('src/context.ts')?.includes('src/http-interface.ts'), 'a type-only import');
  assert.ok(graph.get('src/main.ts')?.includes('src/http/provider.ts'), 'a dynamic import');
  const cycle = findCycle(graph);
  assert.equal(cycle, undefined, `an import cycle: ${cycle?.join(' → ') ?? ''}`);
});

test('no import cycle between folders of src/, at any depth', () => {
  const graph = importGraph();
  const deepest = Math.max(...[...graph.keys()].map((m) => m.split('/').length - 2));
  // The walk sees folders at both depths: the engine and the opt-out store read CSV files from src/csv/.
  const top = folderGraph(graph, 1);
  assert.ok(top.get('src/bulk')?.includes('src/csv') && top.get('src/optouts')?.includes('src/csv'));
  // …and the files directly in src/ among them: the Context, and the folders that import it.
  assert.ok(top.get('src/main.ts')?.includes('src/context.ts') && top.get('src/output')?.includes('src/context.ts'));
  assert.ok(folderGraph(graph, 2).get('src/bulk/preflight')?.includes('src/bulk/input'));
  for (let depth = 1; depth <= deepest; depth++) {
    const cycle = findCycle(folderGraph(graph, depth));
    assert.equal(cycle, undefined, `an import cycle between folders: ${cycle?.join(' → ') ?? ''}`);
  }
});

test('folderGraph sees a loop between folders whose files make none, through a file directly in src/ too', () => {
  const files = new Map([['src/a/x.ts', ['src/b/y.ts']], ['src/b/y.ts', ['src/a/z.ts', 'src/c.ts']], ['src/a/z.ts', []], ['src/c.ts', []]]);
  assert.equal(findCycle(files), undefined);
  assert.deepEqual(folderGraph(files, 1), new Map([['src/a', ['src/b']], ['src/b', ['src/a', 'src/c.ts']], ['src/c.ts', []]]));
  assert.deepEqual(findCycle(folderGraph(files, 1)), ['src/a', 'src/b', 'src/a']);
  assert.deepEqual(folderGraph(files, 2), new Map());
  // The Context's old loop: context.ts → http/client.ts → output/sanitize.ts; output/ui.ts → context.ts.
  const context = new Map([['src/context.ts', ['src/http/client.ts']], ['src/http/client.ts', ['src/output/sanitize.ts']], ['src/output/sanitize.ts', []], ['src/output/ui.ts', ['src/context.ts']]]);
  assert.equal(findCycle(context), undefined);
  assert.deepEqual(findCycle(folderGraph(context, 1)), ['src/context.ts', 'src/http', 'src/output', 'src/context.ts']);
});

test('no folder of src/ holds more than 12 files', () => {
  const folders = [SRC, ...allFolders(SRC)];
  const counts = folders.map((dir) => ({ dir: relative(ROOT, dir) || 'src', files: readdirSync(dir).filter((n) => statSync(join(dir, n)).isFile()).length }));
  // The walk sees folders and counts their files: src/bulk/this-run/ has several.
  assert.ok(counts.some((c) => c.dir === 'src/bulk/this-run' && c.files > 5), JSON.stringify(counts.find((c) => c.dir === 'src/bulk/this-run')));
  assert.deepEqual(counts.filter((c) => c.files > MAX_FILES).map((c) => `${c.dir}: ${c.files} files`), []);
});

test('outside src/commands/, no module imports a command or main.ts; the reference generator only main.ts, to walk the tree', () => {
  const graph = importGraph();
  const isCommand = (m: string): boolean => m.startsWith('src/commands/') || m === 'src/main.ts';
  // The walk sees such imports where they are allowed: main.ts's of the commands, and the generator's of main.ts.
  assert.ok(graph.get('src/main.ts')?.some((t) => t.startsWith('src/commands/')));
  assert.ok(graph.get('src/reference/generate.ts')?.includes('src/main.ts'));
  const strays = [...graph].flatMap(([from, targets]) => {
    if (isCommand(from)) return [];
    const refused = from.startsWith('src/reference/') ? targets.filter((t) => t.startsWith('src/commands/')) : targets.filter(isCommand);
    return refused.map((t) => `${from} → ${t}`);
  });
  assert.deepEqual(strays, []);
});

test('findCycle finds a loop, and none in a graph without one', () => {
  assert.deepEqual(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), ['a', 'b', 'c', 'a']);
  assert.deepEqual(findCycle(new Map([['a', ['a']]])), ['a', 'a']);
  assert.equal(findCycle(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), undefined);
});

test('outside the engine, a dynamic import of src/bulk/ is of a front door (lint checks the static ones)', () => {
  const doors = ['src/bulk/campaign-door.ts', 'src/bulk/runs-door.ts'];
  const graph = importGraph(true);
  // The walk sees dynamic imports: msgr listen asks the runs door whether a run is sending.
  assert.ok(graph.get('src/commands/listen/run.ts')?.includes('src/bulk/runs-door.ts'));
  const strays = [...graph].flatMap(([from, targets]) => (from.startsWith('src/bulk/') ? [] : targets.filter((t) => t.startsWith('src/bulk/') && !doors.includes(t)).map((t) => `${from} → ${t}`)));
  assert.deepEqual(strays, []);
});

/** Every file (`.ts`) and folder under `dir`, as paths relative to ROOT. */
function entries(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return [relative(ROOT, path), ...entries(path)];
    return name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** A file's or folder's name as a newcomer guesses it: `.ts` dropped. */
const baseName = (path: string): string => path.split('/').at(-1)!.replace(/\.ts$/, '');

/**
 * The names of src/ that stand for two things, each with the paths that use it: outside
 * src/commands/, any name but a folder's door (index.ts) used twice; a file of src/commands/
 * (other than index, options and run, and flags.ts and shared.ts, which a command's folder keeps
 * for its subcommands) or anything of src/commands/shared/ named as something outside
 * src/commands/. The folders of src/commands/ mirror the commands, so a command may share its
 * concept's name (src/sandbox/, src/message/segments.ts).
 */
function nameCollisions(paths: readonly string[]): string[] {
  const inCommands = (p: string): boolean => p.startsWith('src/commands/');
  const isFile = (p: string): boolean => p.endsWith('.ts');
  const outside = new Map<string, string[]>();
  for (const p of paths.filter((p) => !inCommands(p) && baseName(p) !== 'index')) outside.set(baseName(p), [...(outside.get(baseName(p)) ?? []), p]);
  const found = [...outside].filter(([, ps]) => ps.length > 1).map(([name, ps]) => `${name}: ${ps.join(', ')}`);
  for (const p of paths.filter(inCommands)) {
    const shared = p.startsWith('src/commands/shared/');
    if (!shared && (!isFile(p) || ['index', 'options', 'run', 'flags', 'shared'].includes(baseName(p)))) continue;
    const same = outside.get(baseName(p));
    if (same !== undefined) found.push(`${baseName(p)}: ${p}, ${same.join(', ')}`);
  }
  return found;
}

test('no name in src/ stands for two things: none repeats outside src/commands/, nor between a command\'s files and the rest', () => {
  const paths = entries(SRC);
  // The walk sees files and folders, in src/commands/ and outside it.
  assert.ok(paths.includes('src/bulk/journal') && paths.includes('src/bulk/journal/records.ts') && paths.includes('src/commands/shared/flag-files.ts'));
  assert.deepEqual(nameCollisions(paths), []);
});

test('nameCollisions names a name used twice outside src/commands/, and a command\'s file named as something outside', () => {
  const paths = ['src/bulk', 'src/bulk/journal', 'src/bulk/journal/index.ts', 'src/events', 'src/events/index.ts', 'src/commands', 'src/commands/runs', 'src/commands/runs/run.ts', 'src/commands/runs/flags.ts', 'src/commands/sandbox', 'src/sandbox', 'src/commands/shared', 'src/commands/shared/flags.ts'];
  assert.deepEqual(nameCollisions(paths), [], 'doors, a command\'s own files, and a command named as its concept\'s folder');
  assert.deepEqual(nameCollisions([...paths, 'src/bulk/journal/records.ts', 'src/events/records.ts']), ['records: src/bulk/journal/records.ts, src/events/records.ts']);
  assert.deepEqual(nameCollisions([...paths, 'src/events/journal.ts']), ['journal: src/bulk/journal, src/events/journal.ts']);
  assert.deepEqual(nameCollisions([...paths, 'src/schedule/flags.ts']), ['flags: src/commands/shared/flags.ts, src/schedule/flags.ts']);
  assert.deepEqual(nameCollisions([...paths, 'src/commands/send-bulk/campaign.ts', 'src/bulk/campaign.ts']), ['campaign: src/commands/send-bulk/campaign.ts, src/bulk/campaign.ts']);
});

/** Files directly in test/unit/ that prove the repository as a whole, not one module of src/. */
const WHOLE_REPOSITORY = ['layout', 'citations', 'doc-pages'];

test('a unit test sits where the code it proves sits: each folder of test/unit/ is one of src/, and a file at its top proves the repository or a module directly in src/', () => {
  const UNIT = join(ROOT, 'test', 'unit');
  const tests = entries(UNIT);
  const src = new Set(entries(SRC).map((p) => p.replace(/^src\//, '')));
  // The walk sees the test folders and the files at the top.
  assert.ok(tests.includes('test/unit/bulk/journal') && tests.includes('test/unit/layout.test.ts'));
  const strays = tests.flatMap((p) => {
    const inUnit = p.replace(/^test\/unit\//, '');
    if (!p.endsWith('.ts')) return src.has(inUnit) ? [] : [`${p}/: no src/${inUnit}/`];
    if (inUnit.includes('/')) return [];
    const name = inUnit.replace(/\.test\.ts$/, '');
    return WHOLE_REPOSITORY.includes(name) || src.has(`${name}.ts`) ? [] : [`${p}: at the top of test/unit/, neither a test of the repository nor of a module directly in src/`];
  });
  assert.deepEqual(strays, []);
});
