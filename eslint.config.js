// Type-aware linting: the rules that catch floating promises and unsafe any are the point.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NO_PROCESS = { name: 'node:process', message: 'Use the Context (src/context.ts); only src/main.ts touches process.' };

// The campaign engine's folders (src/bulk/), lowest first. A folder imports only folders of the
// groups before its own: never one of its own group, nor one after it, nor a command; type
// imports count too. That keeps the engine free of import cycles and says where a helper goes
// (README: "Design notes", send-bulk stage by stage).
const ENGINE_ORDER = [['journal', 'input'], ['report', 'compose'], ['preflight'], ['send'], ['runs'], ['display']];

/** One config per engine folder: the folders it may not import, as import paths. */
function engineOrder() {
  return ENGINE_ORDER.flatMap((group, level) =>
    group.map((folder) => {
      const below = ENGINE_ORDER.slice(0, level).flat();
      const notBelow = ENGINE_ORDER.slice(level).flat().filter((f) => f !== folder);
      return {
        files: [`src/bulk/${folder}/**/*.ts`],
        rules: {
          'no-restricted-imports': ['error', {
            paths: [NO_PROCESS],
            patterns: [
              ...(notBelow.length > 0 ? [{
                regex: `^(\\.\\./)+(bulk/)?(${notBelow.join('|')})/`,
                message: `src/bulk/${folder}/ may import ${below.length > 0 ? `only ${below.map((f) => `${f}/`).join(', ')} of the engine` : 'no other folder of the engine'} (the order: eslint.config.js, ENGINE_ORDER).`,
              }] : []),
              { regex: '^(\\.\\./)+commands/', message: 'The engine never imports a command.' },
            ],
          }],
        },
      };
    }),
  );
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
    // gets it through the Context, so commands run in-process with a fake one (README, "Design notes").
    files: ['src/**/*.ts'],
    ignores: ['src/main.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: 'Use the Context (src/context.ts); only src/main.ts touches process.' }],
      'no-restricted-imports': ['error', { paths: [NO_PROCESS] }],
    },
  },
  ...engineOrder(),
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly' } },
  },
);
