import type { Config } from 'jest';

// `pnpm test:deploy` only: the Docker tests build every image and run the Compose stack (deploy-local.deploy.test.ts),
// and watch the shipped alerts fire on a live Prometheus (live-alerts.deploy.test.ts, alone: `pnpm test:alerts`),
// far beyond the README test command's 15-minute budget, so the main jest config's patterns (*.test.ts beside
// code, test/**/*.int.test.ts) never match them.
const config: Config = {
  rootDir: '../..',
  testMatch: ['<rootDir>/test/deploy/*.deploy.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testEnvironment: 'node',
  // A cold build (base images, every target) takes many minutes on two cores.
  testTimeout: 45 * 60_000,
};

export default config;
