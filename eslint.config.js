// Type-aware linting: the rules that catch floating promises and unsafe any are the point.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
      'no-restricted-imports': ['error', { paths: [{ name: 'node:process', message: 'Use the Context (src/context.ts); only src/main.ts touches process.' }] }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly' } },
  },
);
