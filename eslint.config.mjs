import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '**/dist/**', 'coverage/**', '**/tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-empty-object-type': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unsafe-declaration-merging': 'off',
      '@typescript-eslint/ban-ts-comment': ['error', { 'ts-expect-error': false }],
    },
  },
  {
    // The CLI's packages load only from the `nestjs-judgment/cli` entry point (cli/cli-dependencies.spec.ts checks it).
    files: ['libs/judgment/src/**/*.ts'],
    ignores: ['libs/judgment/src/cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        ...['commander', 'cli-table3', 'cli-progress'].map((name) => ({
          name,
          message: 'Only the CLI (libs/judgment/src/cli) may import it: apps that never run the CLI must not load it.',
        })),
      ],
    },
  },
);
