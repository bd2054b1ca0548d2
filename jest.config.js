/** Jest 30 + @swc/jest. Nest 12 packages are ESM-only, so they go through the transformer too. */
const fs = require('node:fs');
const swc = JSON.parse(fs.readFileSync(`${__dirname}/.swcrc`, 'utf8'));
delete swc.$schema;

const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', { ...swc, swcrc: false }] },
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/)'],
  moduleNameMapper: {
    '^nestjs-judgment$': '<rootDir>/libs/judgment/src/index.ts',
    '^nestjs-judgment/drivers$': '<rootDir>/libs/judgment/src/drivers/index.ts',
    '^nestjs-judgment/calibration$': '<rootDir>/libs/judgment/src/calibration/index.ts',
    '^nestjs-judgment/testing$': '<rootDir>/libs/judgment/src/testing/index.ts',
    '^nestjs-judgment/cli$': '<rootDir>/libs/judgment/src/cli/index.ts',
    '^nestjs-judgment/http$': '<rootDir>/libs/judgment/src/http/index.ts',
    '^nestjs-judgment/simulator$': '<rootDir>/libs/judgment/src/simulator/index.ts',
  },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // Sets the e2e test timeout (60 s, above every helper's polling deadline).
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeout.ts'],
    },
  ],
};
