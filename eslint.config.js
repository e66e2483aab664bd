// Type-aware linting: the rules that catch floating promises and unsafe any are the point.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NO_PROCESS = { name: 'node:process', message: 'Use the Context (src/context.ts); only src/main.ts touches process.' };

// The campaign engine (src/bulk/; docs/design.md): its folders, lowest first. A folder imports
// only folders of the groups before its own: never one of its own group, nor one after it, nor a
// door, nor a command; type imports count too. That keeps the engine free of import cycles and
// says where a helper goes. campaign.ts and flag-names.ts are leaves every folder may import; they
// import no folder.
const ENGINE_ORDER = [['journal', 'input'], ['report', 'compose', 'history'], ['preflight'], ['send-pass'], ['this-run'], ['earlier'], ['display'], ['stages']];

// The engine's front doors (facades, not barrels: esbuild would initialise every module a barrel
// re-exports): each command reaches the engine through one, and imports nothing else of it.
// Outside src/bulk/, a module may import a door and the leaves; the preflight's worker thread
// (src/workers/) runs preflight/ and input/ itself. The layout test checks dynamic imports, which
// lint does not see.
const DOORS = { 'src/commands/send-bulk/run.ts': 'campaign-door', 'src/commands/runs/**/*.ts': 'runs-door' };
const LEAVES = ['campaign', 'flag-names'];
const OUTSIDE = { 'src/workers/**/*.ts': ['preflight', 'input'] };

const ORDER_HELP = 'eslint.config.js, ENGINE_ORDER; docs/design.md';

// Outside src/commands/, no module imports a command or main.ts: commands sit above everything
// else, and main.ts above them. The reference generator (src/reference/) is the one exception: it
// builds the program to walk its command tree. test/unit/layout.test.ts checks dynamic imports too.
const NO_COMMAND = { regex: '^\\.\\.?/(\\.\\./)*commands/', message: 'Outside src/commands/, no module imports a command (docs/design.md).' };
const NO_MAIN = { regex: '^\\.\\.?/(\\.\\./)*main\\.js$', message: 'Only the reference generator imports main.ts (docs/design.md).' };
const ABOVE = [NO_COMMAND, NO_MAIN];

/** An import of src/bulk/ from outside it, other than the modules and folders named. */
function outsideEngine(modules, folders = []) {
  const allowed = [...modules.map((m) => `${m}\\.js$`), ...folders.map((f) => `${f}/`)];
  return {
    regex: `^(\\.\\./)+bulk/(?!(${allowed.join('|')}))`,
    message: `Outside src/bulk/ this may import of the engine only ${[...modules.map((m) => `bulk/${m}.ts`), ...folders.map((f) => `bulk/${f}/`)].join(', ')} (${ORDER_HELP}).`,
  };
}

/** The import rules of src/, by where a module is: outside the engine, a door's command, a worker, the engine's folders, leaves and doors. */
function importRules() {
  const rule = (files, patterns, ignores) => ({ files, ...(ignores !== undefined ? { ignores } : {}), rules: { 'no-restricted-imports': ['error', { paths: [NO_PROCESS], patterns }] } });
  const doors = [...new Set(Object.values(DOORS))];
  return [
    rule(['src/**/*.ts'], [outsideEngine([...doors, ...LEAVES]), ...ABOVE], ['src/main.ts', 'src/bulk/**', 'src/commands/**', 'src/reference/**']),
    rule(['src/commands/**/*.ts', 'src/reference/**/*.ts'], [outsideEngine([...doors, ...LEAVES])]),
    ...Object.entries(OUTSIDE).map(([files, folders]) => rule([files], [outsideEngine([...doors, ...LEAVES], folders), ...ABOVE])),
    ...Object.entries(DOORS).map(([file, door]) => rule([file], [{ ...outsideEngine([door]), message: `${file} reaches the engine through its front door, src/bulk/${door}.ts, alone (${ORDER_HELP}).` }])),
    ...ENGINE_ORDER.flatMap((group, level) =>
      group.map((folder) => {
        const below = ENGINE_ORDER.slice(0, level).flat();
        const notBelow = ENGINE_ORDER.slice(level).flat().filter((f) => f !== folder);
        return rule([`src/bulk/${folder}/**/*.ts`], [
          ...(notBelow.length > 0 ? [{
            regex: `^(\\.\\./)+(bulk/)?(${notBelow.join('|')})/`,
            message: `src/bulk/${folder}/ may import ${below.length > 0 ? `only ${below.map((f) => `${f}/`).join(', ')} of the engine` : 'no other folder of the engine'} (${ORDER_HELP}).`,
          }] : []),
          { regex: `^\\.\\./(${doors.join('|')})\\.js$`, message: `The engine's folders never import its doors (${ORDER_HELP}).` },
          ...ABOVE,
        ]);
      }),
    ),
    rule(LEAVES.map((leaf) => `src/bulk/${leaf}.ts`), [{ regex: `^\\./(?!(${LEAVES.join('|')})\\.js$)`, message: `campaign.ts and flag-names.ts are leaves: they import no folder nor door of the engine (${ORDER_HELP}).` }, ...ABOVE]),
    // The doors, and the send-bulk door's RunContext: above every folder, below every command.
    rule([...doors.map((door) => `src/bulk/${door}.ts`), 'src/bulk/run-context.ts'], [{ regex: `^\\./(${doors.join('|')})\\.js$`, message: `A door never imports another (${ORDER_HELP}).` }, ...ABOVE]),
  ];
}

export default tseslint.config(
  { ignores: ['dist/**', 'dist.*/**', 'build/**', 'build.*/**', 'node_modules/**', 'bench/.data/**'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', name: ['test', 'describe', 'it', 'suite'], package: 'node:test' }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // Matching control characters is deliberate: msgr strips them from server text.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
    },
  },
  {
    // Only src/main.ts touches the process (argv, env, stdio, exit, signals, pid); everything else
    // gets it through the Context, so commands run in-process with a fake one (docs/design.md:
    // "Choices"). node:process itself is refused by importRules (below), which every src/ file matches.
    files: ['src/**/*.ts'],
    ignores: ['src/main.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: 'Use the Context (src/context.ts); only src/main.ts touches process.' }],
    },
  },
  ...importRules(),
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly' } },
  },
  {
    // bin/ is CommonJS (bin/package.json), as its .cjs files are.
    files: ['**/*.cjs', 'bin/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly' } },
  },
);
