// ESLint: typescript-eslint's type-checked rules over the whole project (`npm run lint`, run by `npm test`'s CI script).
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.bench/', '.scratch/', 'coverage/', 'docs/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A leading underscore marks what is unused on purpose (a handler's event, a field left out of a copy).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // It calls an assertion unnecessary where it gives an empty literal or an untyped item its
      // type (and removing it breaks the build): tsc's own checks stand in for it.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain JavaScript run by Node itself: the jest config (ESM), and the jest transformer, sequencer
    // and timing reporter (CommonJS).
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', require: 'readonly', module: 'writable', __filename: 'readonly', __dirname: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read untyped JSON (responses, table scans, templates) and give mocks async bodies
    // with nothing to await: the checks of `any`, and of awaits, would only add casts there.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
