import type { Config } from 'jest';

// `pnpm test:spacebar` only: builds Spacebar's server from ../shared/platforms/spacebar (cached in .cache/spacebar),
// starts it with a database of its own and runs the whole product against it, far beyond the README test
// command's budget, so the main jest config's patterns (*.test.ts beside code, test/**/*.int.test.ts) never match.
const config: Config = {
  rootDir: '../..',
  testMatch: ['<rootDir>/test/spacebar/*.spacebar.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testEnvironment: 'node',
  // A cold build (npm ci, tsc, schema generation) and a clone of this checkout take minutes on two cores.
  testTimeout: 30 * 60_000,
};

export default config;
