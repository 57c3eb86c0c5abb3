import type { Config } from 'jest';

// `pnpm test:deploy` only: the Docker deployment test (deploy-local.deploy.test.ts) builds every image and
// runs the Compose stack, far beyond the README test command's 15-minute budget, so the main jest config's
// patterns (*.test.ts beside code, test/**/*.int.test.ts) never match it.
const config: Config = {
  rootDir: '../..',
  testMatch: ['<rootDir>/test/deploy/*.deploy.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testEnvironment: 'node',
  // A cold build (base images, every target) takes many minutes on two cores.
  testTimeout: 45 * 60_000,
};

export default config;
