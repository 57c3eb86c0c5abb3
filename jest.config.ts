import type { Config } from 'jest';

// Two projects: unit tests beside the code (*.test.ts) and integration tests against real PostgreSQL
// and Redis (*.int.test.ts). Both use swc to strip types; `pnpm typecheck` checks them with tsc.
const transform: Config['transform'] = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const ignore = ['/node_modules/', '/dist/', '/generated/'];

const config: Config = {
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'unit',
      transform,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/{packages,services,examples}/**/src/**/*.test.ts'],
      testPathIgnorePatterns: [...ignore, '\\.int\\.test\\.ts$'],
    },
    {
      displayName: 'integration',
      transform,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/{packages,services}/**/*.int.test.ts', '<rootDir>/test/**/*.int.test.ts'],
      testPathIgnorePatterns: ignore,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
  ],
};

export default config;
