// The e2e project's test timeout (jest.config.js setupFilesAfterEnv; Jest 30 ignores a project's testTimeout): above
// every helper's polling deadline, so a slow wait fails with the helper's message rather than Jest's timeout.
jest.setTimeout(60_000);
