// `pnpm --filter @rolelink/plugin-sdk build` (and prepack): the publishable package in dist/, CommonJS
// JavaScript and .d.ts, compiled by tsc's API with tsconfig.build.json. The SDK's wire types, and the one
// user-id rule beside them (@rolelink/wire-types/user-id), come from the workspace's unpublished
// @rolelink/wire-types, so the build compiles that package into dist/wire-types and points every import of
// it there: the published package names no workspace package.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SDK = path.resolve(import.meta.dirname, '..');
const SRC = path.join(SDK, 'src');
const DIST = path.join(SDK, 'dist');
const WIRE = '@rolelink/wire-types';
// Read from the repository, not node_modules: `npm install` in this folder alone (no pnpm, no workspace)
// installs only the SDK's own dependencies, and the build must work from there (README.md, Development).
const WIRE_DIR = path.join(SDK, '..', '..', 'packages', 'wire-types');
const WIRE_SRC = path.dirname(path.join(WIRE_DIR, readJson(path.join(WIRE_DIR, 'package.json')).types));
const WIRE_OUT = path.join(DIST, 'wire-types');

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Compiles `rootNames`, or prints tsc's diagnostics and exits like tsc. */
function emit(rootNames, options, transformers) {
  const program = ts.createProgram({ rootNames, options });
  const result = program.emit(undefined, undefined, undefined, false, transformers);
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length === 0) return;
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => SDK, getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.exit(1);
}

/**
 * Rewrites `@rolelink/wire-types` and its subpaths (imports, re-exports, `import("…")` types) to
 * dist/wire-types, relative to the output file: in the .d.ts, and in the JavaScript, whose only value
 * import of it is the user-id rule.
 */
function toCopiedWireTypes(context) {
  const f = context.factory;
  return (file) => {
    if (!ts.isSourceFile(file)) return file;
    const outDir = path.dirname(path.join(DIST, path.relative(SRC, file.fileName)));
    const relative = path.relative(outDir, WIRE_OUT).split(path.sep).join('/');
    const base = relative.startsWith('.') ? relative : `./${relative}`;
    const target = (literal) => f.createStringLiteral(base + literal.text.slice(WIRE.length));
    const isWire = (node) =>
      node !== undefined && ts.isStringLiteral(node) && (node.text === WIRE || node.text.startsWith(`${WIRE}/`));
    const visit = (node) => {
      if (ts.isImportDeclaration(node) && isWire(node.moduleSpecifier))
        return f.updateImportDeclaration(
          node,
          node.modifiers,
          node.importClause,
          target(node.moduleSpecifier),
          node.attributes,
        );
      if (ts.isExportDeclaration(node) && isWire(node.moduleSpecifier))
        return f.updateExportDeclaration(
          node,
          node.modifiers,
          node.isTypeOnly,
          node.exportClause,
          target(node.moduleSpecifier),
          node.attributes,
        );
      if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && isWire(node.argument.literal)) {
        return f.updateImportTypeNode(
          node,
          f.createLiteralTypeNode(target(node.argument.literal)),
          node.attributes,
          node.qualifier,
          node.typeArguments,
          node.isTypeOf,
        );
      }
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitEachChild(file, visit, context);
  };
}

const configFile = path.join(SDK, 'tsconfig.build.json');
const { config, error } = ts.readConfigFile(configFile, ts.sys.readFile);
if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
const build = ts.parseJsonConfigFileContent(config, ts.sys, SDK, undefined, configFile);

rmSync(DIST, { recursive: true, force: true });
// 1. The wire types and the user-id rule, into dist/wire-types (the types-only files compile to empty modules).
const wireFiles = readdirSync(WIRE_SRC, { recursive: true })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => path.join(WIRE_SRC, f));
emit(wireFiles, { ...build.options, rootDir: WIRE_SRC, outDir: WIRE_OUT });
// 2. The SDK, reading the wire types from what step 1 emitted, its imports of them pointed there.
emit(
  build.fileNames,
  {
    ...build.options,
    paths: { [WIRE]: [path.join(WIRE_OUT, 'index.d.ts')], [`${WIRE}/*`]: [path.join(WIRE_OUT, '*')] },
  },
  { before: [toCopiedWireTypes], afterDeclarations: [toCopiedWireTypes] },
);

// 3. Nothing published may still load a workspace package (the pack test checks the tarball too).
const leaks = readdirSync(DIST, { recursive: true })
  .map((f) => path.join(DIST, f))
  .filter((f) => /\.(js|d\.ts)$/.test(f) && /["']@rolelink\//.test(readFileSync(f, 'utf8')));
if (leaks.length) {
  process.stderr.write(`dist/ still imports a workspace package: ${leaks.join(', ')}\n`);
  process.exit(1);
}
