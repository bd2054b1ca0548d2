import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const CLI_PACKAGES = ['commander', 'cli-table3', 'cli-progress'].map((name) => ({
  name,
  message: 'Only the CLI (libs/judgment/src/cli) may import it: apps that never run the CLI must not load it.',
}));

const NO_MODULE_REF = {
  name: '@nestjs/core',
  importNames: ['ModuleRef', 'LazyModuleLoader', 'ModulesContainer', 'NestContainer'],
  message: 'No service location: inject what you need through the constructor (@Optional() where it may be absent).',
};

const NO_DISCOVERY = {
  name: '@nestjs/core',
  importNames: ['DiscoveryService', 'DiscoveryModule'],
  message:
    "The app's own providers are found once, when the app starts, by judgment.discovery.ts (appProvider): import it " +
    'from there.',
};

const SPECS = ['libs/judgment/src/**/*.spec.ts', 'libs/judgment/src/**/*.spec-helpers.ts'];

/** Where the wiring finds the app's own providers (its CacheModule store, its ResolutionPolicy) when the app starts. */
const STARTUP_DISCOVERY = 'libs/judgment/src/judgment.discovery.ts';

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
    // injected, and the wiring finds the app's own providers once at startup with DiscoveryService (the layer rule
    // no-service-location keeps @nestjs/core out of the lower layers too).
    files: ['libs/judgment/src/**/*.ts'],
    ignores: ['libs/judgment/src/cli/**', STARTUP_DISCOVERY, ...SPECS],
    rules: { 'no-restricted-imports': ['error', ...CLI_PACKAGES, NO_MODULE_REF, NO_DISCOVERY] },
  },
  {
    files: [STARTUP_DISCOVERY],
    rules: { 'no-restricted-imports': ['error', ...CLI_PACKAGES, NO_MODULE_REF] },
  },
  {
    // Specs build the container by hand, and may hand a service a ModuleRef.
    files: SPECS,
    ignores: ['libs/judgment/src/cli/**'],
    rules: { 'no-restricted-imports': ['error', ...CLI_PACKAGES] },
  },
);
