// Lint gate (npm run lint): typescript-eslint's type-aware rules over every TypeScript source.
// Formatting is Prettier's business (npm run format:check), so no stylistic rules here.
import js from '@eslint/js';
import checkFile from 'eslint-plugin-check-file';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test/e2e/.run/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Modules loaded on first use to keep activation and startup fast (each require says why).
      '@typescript-eslint/no-require-imports': [
        'error',
        { allow: ['^undici$', '^vscode-languageclient/node$', '/common/lab/parse/parse$', '/common/protocol$'] },
      ],
      // Forwarding a caught value to reject() is right; what this rule is for is reject('a string').
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Handlers and backend methods are async by contract, so a throw becomes a rejection even
      // where the body has nothing to await (the simulated emulator answers from memory).
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // One spelling for file and folder names: kebab-case (`refresh-pacer.ts`, `code-lens.ts`).
    plugins: { 'check-file': checkFile },
    rules: {
      'check-file/filename-naming-convention': ['error', { '**/*.ts': 'KEBAB_CASE' }, { ignoreMiddleExtensions: true }],
      'check-file/folder-naming-convention': ['error', { '{agent,client,common,server,test}/**/': 'KEBAB_CASE' }],
    },
  },
  {
    // Tests probe untyped JSON replies on purpose; the unsafe-any family would only add casts there.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
