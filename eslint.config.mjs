// ESLint for the whole tree: typescript-eslint's type-checked recommended rules on every TypeScript file
// (each file is checked against the tsconfig that includes it: the root one, or the web app's), and the
// plain recommended rules on the few JavaScript files, which no tsconfig covers. The dashboard's front end
// also gets the React hooks rules (including the compiler's: no refs read or written during render) and
// jsx-a11y's recommended accessibility rules. Formatting is Prettier's
// job (`pnpm format`), so eslint-config-prettier switches off the stylistic rules that would fight it.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '**/coverage/',
      '.data/',
      // Spacebar's server as scripts/spacebar/prepare.ts unpacks and builds it (pnpm test:spacebar).
      '.cache/',
      '**/.bench/',
      // Prisma's generated client (`pnpm db:generate`).
      'packages/db/src/generated/',
      // Consumers of the packed SDK: they import the tarball's dist/ from a scratch project, so only the
      // package test's own tsc run (against the packed types) can check them.
      'sdk/plugin-sdk/test/packed-consumer/*.{mts,cts}',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // A leading underscore marks a binding kept on purpose: an Express error handler's fourth parameter
      // (Express tells error handlers by their arity), or a property left out of a rest object.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Error bodies are written only by AppError#toBody() (docs/architecture.md, "One error type, one body"):
    // `new AppError(status, message, code)` is a plain error, anything more comes from a factory, and a
    // service never writes a `{ statusCode, … }` literal of its own.
    files: ['packages/*/src/**/*.ts', 'services/*/src/**/*.ts', 'sdk/*/src/**/*.ts'],
    // The plugin SDK is a client published on its own (no service imports): it refuses a bad id before
    // sending with the same body the service would answer, so it writes that body itself.
    ignores: [
      'packages/runtime/src/app-error.ts',
      'packages/contracts/src/error-body.ts',
      'sdk/plugin-sdk/**',
      '**/*.test.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='AppError'][arguments.length>3]",
          message:
            'A body beyond statusCode and message comes from an AppError factory (validation, field, fields, pluginFailure, prescribed).',
        },
        {
          selector:
            "ObjectExpression > Property[key.name='statusCode'][value.type!='Literal'], ObjectExpression > Property[key.name='statusCode'][value.value>=100]",
          message: 'Error bodies are written by AppError#toBody(): throw or next() an AppError instead.',
        },
      ],
    },
  },
  {
    files: ['services/dashboard/web/{src,test}/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    ...jsxA11y.flatConfigs.recommended,
    plugins: { ...reactHooks.configs.flat.recommended.plugins, ...jsxA11y.flatConfigs.recommended.plugins },
    rules: { ...reactHooks.configs.flat.recommended.rules, ...jsxA11y.flatConfigs.recommended.rules },
    languageOptions: { ...jsxA11y.flatConfigs.recommended.languageOptions, globals: { ...globals.browser } },
  },
  {
    // Plain JavaScript: no tsconfig includes these files, so there is no type information to check with.
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // CommonJS files load modules with require(); that is what they are for.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['examples/plugin-server/src/embed/public/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  prettier,
);
