import type { Config } from 'jest';

// Two projects: unit tests beside the code (*.test.ts) and integration tests against real PostgreSQL
// and Redis (*.int.test.ts). Both use swc to strip types; `pnpm typecheck` checks them with tsc.
const transform: Config['transform'] = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const ignore = ['/node_modules/', '/dist/', '/generated/'];
// Prisma's generated client imports its own .ts files with .js extensions (ESM style).
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
// The SDK's staged npm package (packages/plugin-sdk/dist/package, `npm run build`) repeats its package name.
const modulePathIgnorePatterns = ['<rootDir>/packages/[^/]+/dist/'];

const config: Config = {
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'unit',
      transform,
      moduleNameMapper,
      modulePathIgnorePatterns,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/{packages,services,examples}/**/src/**/*.test.ts'],
      testPathIgnorePatterns: [...ignore, '\\.int\\.test\\.ts$'],
    },
    {
      displayName: 'integration',
      transform,
      moduleNameMapper,
      modulePathIgnorePatterns,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/{packages,services,examples}/**/*.int.test.ts', '<rootDir>/test/**/*.int.test.ts'],
      testPathIgnorePatterns: ignore,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};

export default config;
