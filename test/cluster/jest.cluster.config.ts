import type { Config } from 'jest';

// `pnpm test:cluster` only: the whole system on a Redis Cluster of its own (redis-cluster.cluster.test.ts)
// starts six redis-servers, the API and three bot workers and waits out a master failover, more than the
// minute the README test command can give one test; the main jest config's patterns never match it.
const config: Config = {
  rootDir: '../..',
  testMatch: ['<rootDir>/test/cluster/*.cluster.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 10 * 60_000,
};

export default config;
