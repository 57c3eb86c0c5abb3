// Offline replacement for `prisma migrate deploy` / `prisma migrate diff` (notes/prisma-offline.md):
// Prisma's own schema engine compiled to WebAssembly, driven through the pg driver adapter. It records
// migrations in `_prisma_migrations` exactly as the regular CLI does.
//   pnpm db:migrate            apply pending migrations to DATABASE_URL (`deploy`, also with no argument)
//   pnpm db:diff <name> [ref]  write prisma/migrations/<timestamp>_<name>/migration.sql: the change from
//                              prisma/schema.prisma at git ref (default HEAD) to the working copy
//   migrate.ts status          what of prisma/migrations the database holds; exit 0 when it holds all of it, 1 if not
//   migrate.ts wait            poll until it holds all of it, then exit 0 (the Deployments' init container)
import { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { migrationAdapter } from './migrate-adapter';
import { describeStatus, isCurrent, migrationStatus, waitForMigrations } from './migrate-status';
import { loadEnv } from '../services/migrate/src/env';

/**
 * The nearest directory at or above this file holding prisma/schema.prisma: the repository root when run
 * from scripts/ (tsx) or services/migrate/dist/ (`pnpm build`), /app in the migrate image.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'prisma', 'schema.prisma'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no prisma/schema.prisma at or above ${from}`);
  }
}

const root = findRoot(__dirname);
const schemaPath = path.join(root, 'prisma', 'schema.prisma');
const baseDir = path.join(root, 'prisma', 'migrations');
const filters = { externalTables: [], externalEnums: [] };

function migrationsList(dir = baseDir) {
  const dirs = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
  const lockPath = path.join(dir, 'migration_lock.toml');
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: readFileSync(path.join(dir, name, 'migration.sql'), 'utf8') },
      },
    })),
  };
}

/** Applies the pending migrations of `dir` (prisma/migrations; a test passes a folder of its own). */
export async function migrate(
  connectionString: string,
  log: (line: string) => void = console.log,
  dir = baseDir,
): Promise<string[]> {
  // Imported lazily: the engine's ESM entry loads a .wasm module (needs --experimental-wasm-modules on Node 20).
  const { SchemaEngine } = await import('@prisma/schema-engine-wasm');
  const schemaText = readFileSync(schemaPath, 'utf8');
  const adapter = migrationAdapter(connectionString);
  const engine = await SchemaEngine.new({ datamodels: [[schemaPath, schemaText]] }, () => undefined, adapter);
  try {
    const list = migrationsList(dir);
    const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList: list, filters });
    for (const name of appliedMigrationNames) log(`applied migration ${name}`);
    log(
      appliedMigrationNames.length ? `${appliedMigrationNames.length} migration(s) applied` : 'database is up to date',
    );
    return appliedMigrationNames;
  } finally {
    engine.free();
  }
}

// New migration SQL = diff between the schema as last committed (git) and the working copy. Diffing from
// the migration history would need a shadow database that the wasm engine cannot introspect here.
async function diff(connectionString: string, name: string, fromRef: string): Promise<void> {
  const { SchemaEngine } = await import('@prisma/schema-engine-wasm');
  const schemaText = readFileSync(schemaPath, 'utf8');
  const adapter = migrationAdapter(connectionString);
  const engine = await SchemaEngine.new({ datamodels: [[schemaPath, schemaText]] }, () => undefined, adapter);
  try {
    const hasMigrations = migrationsList().migrationDirectories.length > 0;
    const previous = hasMigrations
      ? execFileSync('git', ['show', `${fromRef}:prisma/schema.prisma`], { cwd: root, encoding: 'utf8' })
      : null;
    const from =
      previous === null
        ? { tag: 'empty' }
        : { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: previous }] };
    const result = await engine.diff({
      from: from as never,
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schemaText }] },
      script: true,
      exitCode: null,
      filters,
    } as never);
    const sql = (result as { stdout: string }).stdout;
    if (!sql.trim() || /empty migration/i.test(sql)) {
      console.log('schema matches the migrations; nothing to write');
      return;
    }
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(baseDir, `${stamp}_${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'migration.sql'), sql);
    const lock = path.join(baseDir, 'migration_lock.toml');
    if (!existsSync(lock)) writeFileSync(lock, '# Please do not edit this file manually\nprovider = "postgresql"\n');
    console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
  } finally {
    engine.free();
  }
}

const shipped = () => migrationsList().migrationDirectories.map((d) => d.path);

async function status(url: string): Promise<void> {
  const s = await migrationStatus(url, shipped());
  for (const line of describeStatus(s)) console.log(line);
  if (!isCurrent(s)) process.exitCode = 1;
}

if (require.main === module) {
  const [cmd = 'deploy', name, ref] = process.argv.slice(2);
  let env: ReturnType<typeof loadEnv>;
  try {
    env = loadEnv();
  } catch (err) {
    console.error(`migrate ${cmd}: ${(err as Error).message}`);
    process.exit(2);
  }
  const url = env.DATABASE_URL;
  const commands: Record<string, () => Promise<unknown>> = {
    deploy: () => migrate(url),
    diff: () => diff(url, name ?? 'change', ref ?? 'HEAD'),
    status: () => status(url),
    wait: () => waitForMigrations(url, shipped(), (line) => console.log(line), env.MIGRATE_WAIT_POLL_MS),
  };
  const run = commands[cmd];
  if (!run) {
    console.error(`unknown command ${cmd}: deploy | diff <name> [ref] | status | wait`);
    process.exit(2);
  }
  run().catch((err: unknown) => {
    console.error(`migrate ${cmd} failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
