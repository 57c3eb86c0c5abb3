import type { Config } from 'jest';

// Three projects: unit tests beside the code (*.test.ts), the dashboard's component tests (*.test.tsx, in
// jsdom with Testing Library) and integration tests against real PostgreSQL and Redis (*.int.test.ts).
// All use swc to strip types; `pnpm typecheck` checks them with tsc.
const transform: Config['transform'] = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const tsxTransform: Config['transform'] = {
  '^.+\\.tsx?$': [
    '@swc/jest',
    {
      jsc: {
        target: 'es2022',
        parser: { syntax: 'typescript', tsx: true },
        transform: { react: { runtime: 'automatic' } },
      },
    },
  ],
};
const ignore = ['/node_modules/', '/dist/', '/generated/', '/.cache/'];
// Prisma's generated client imports its own .ts files with .js extensions (ESM style).
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
// The SDK's staged npm package (sdk/plugin-sdk/dist/package, `npm run build`) repeats its package name.
const modulePathIgnorePatterns = ['<rootDir>/sdk/[^/]+/dist/'];

const config: Config = {
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'unit',
      transform,
      moduleNameMapper,
      modulePathIgnorePatterns,
      testEnvironment: 'node',
      testMatch: [
        '<rootDir>/{packages,services,sdk,examples}/**/src/**/*.test.ts',
        '<rootDir>/test/{docs,architecture}/*.test.ts',
      ],
      testPathIgnorePatterns: [...ignore, '\\.int\\.test\\.ts$'],
    },
    {
      displayName: 'web',
      transform: tsxTransform,
      // Vite turns a CSS Module into its class names; here each class is its own name.
      moduleNameMapper: { ...moduleNameMapper, '\\.css$': '<rootDir>/services/dashboard/web/test/css-module.cjs' },
      testEnvironment: 'jsdom',
      setupFilesAfterEnv: ['<rootDir>/services/dashboard/web/test/setup.ts'],
      testMatch: ['<rootDir>/services/dashboard/web/src/**/*.test.tsx'],
      testPathIgnorePatterns: ignore,
    },
    {
      displayName: 'integration',
      transform,
      moduleNameMapper,
      modulePathIgnorePatterns,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/{packages,services,sdk,examples}/**/*.int.test.ts', '<rootDir>/test/**/*.int.test.ts'],
      testPathIgnorePatterns: ignore,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};

export default config;
