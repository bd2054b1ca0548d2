import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const CLI_PACKAGES = ['commander', 'cli-table3', 'cli-progress'].map((name) => ({
  name,
  message: 'Only the CLI (libs/judgment/src/cli) may import it: apps that never run the CLI must not load it.',
}));

const NO_MODULE_REF = {
  name: '@nestjs/core',
  importNames: ['ModuleRef'],
  message: 'No service location: inject what you need through the constructor (@Optional() where it may be absent).',
};

const SPECS = ['libs/judgment/src/**/*.spec.ts', 'libs/judgment/src/**/*.spec-helpers.ts'];

/**
 * The one file besides the CLI that reaches the app's container with ModuleRef (the same list as no-service-location's
 * in .dependency-cruiser.cjs): the core module's wiring, which builds the classes the options name (Engine drivers,
 * the ResolutionPolicy) and hands the cache the app's CacheModule store. Only shrinks.
 */
const SERVICE_LOCATION_LEFT = ['libs/judgment/src/judgment-core.module.ts'];

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
    // The CLI's packages load only from the `nestjs-judgment/cli` entry point (cli/cli-dependencies.spec.ts checks it),
    // and only the CLI, loading an app it did not write, looks services up with ModuleRef: everything else has them
    // injected (the layer rule no-service-location keeps @nestjs/core out of the lower layers too).
    files: ['libs/judgment/src/**/*.ts'],
    ignores: ['libs/judgment/src/cli/**', ...SERVICE_LOCATION_LEFT, ...SPECS],
    rules: { 'no-restricted-imports': ['error', ...CLI_PACKAGES, NO_MODULE_REF] },
  },
  {
    // Specs build the container by hand, and may hand a service a ModuleRef.
    files: [...SERVICE_LOCATION_LEFT, ...SPECS],
    ignores: ['libs/judgment/src/cli/**'],
    rules: { 'no-restricted-imports': ['error', ...CLI_PACKAGES] },
  },
);
