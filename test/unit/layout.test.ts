// No import cycle anywhere in src/: the imports of every module (static, type-only and dynamic)
// form a graph without loops, so a module can be read, tested and loaded without the modules that
// use it (docs/design.md). The order of the engine's folders and its front doors are lint rules
// (eslint.config.js, ENGINE_ORDER and DOORS); lint does not see dynamic imports, so this checks
// that those of the engine from outside it go through a door too.
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
 * The module specifiers of a file, read by the compiler's parser: import and export declarations,
 * `import('…')` calls and `import('…')` types. (ts.preProcessFile's quick scan misses imports
 * after a regular expression literal.)
 */
function specifiers(file: string, dynamicOnly = false): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (dynamicOnly && !ts.isCallExpression(node)) {
      ts.forEachChild(node, visit);
      return;
    }
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) out.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) out.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
  return out;
}

/** Each module of src/ → the modules of src/ it imports (`./x.js` is `./x.ts`); `dynamic`: only those of `import()`. */
function importGraph(dynamic = false): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const targets = specifiers(file, dynamic)
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

test('no import cycle in src/', () => {
  const graph = importGraph();
  // The walk sees the imports: main.ts's, a type-only one and a dynamic one.
  assert.ok(graph.size > 100, `${graph.size} modules`);
  assert.ok(graph.get('src/main.ts')?.includes('src/context.ts'));
  assert.ok(graph.get('src/context.ts')?.includes('src/http/client.ts'), 'a type-only import');
  assert.ok(graph.get('src/main.ts')?.includes('src/http/client.ts'), 'a dynamic import');
  const cycle = findCycle(graph);
  assert.equal(cycle, undefined, `an import cycle: ${cycle?.join(' → ') ?? ''}`);
});

test('findCycle finds a loop, and none in a graph without one', () => {
  assert.deepEqual(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), ['a', 'b', 'c', 'a']);
  assert.deepEqual(findCycle(new Map([['a', ['a']]])), ['a', 'a']);
  assert.equal(findCycle(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), undefined);
});

test('outside the engine, a dynamic import of src/bulk/ is of a front door (lint checks the static ones)', () => {
  const doors = ['src/bulk/send-bulk.ts', 'src/bulk/runs.ts'];
  const graph = importGraph(true);
  // The walk sees dynamic imports: msgr listen asks the runs door whether a run is sending.
  assert.ok(graph.get('src/commands/listen/run.ts')?.includes('src/bulk/runs.ts'));
  const strays = [...graph].flatMap(([from, targets]) => (from.startsWith('src/bulk/') ? [] : targets.filter((t) => t.startsWith('src/bulk/') && !doors.includes(t)).map((t) => `${from} → ${t}`)));
  assert.deepEqual(strays, []);
});
