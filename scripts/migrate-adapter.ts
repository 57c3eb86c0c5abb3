// The database connection the schema engine migrates through (scripts/migrate.ts): Prisma's pg driver
// adapter, except that a migration file goes to PostgreSQL whole.
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  DriverAdapterError,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import { DatabaseError, Pool } from 'pg';

/**
 * The adapter's own `executeScript` cuts a script at every `;` (its source calls it "crude"; upstream's
 * later change only drops the empty pieces, prisma/orm#27510) and runs the pieces one by one, each in a
 * transaction of its own: a semicolon in a `--` comment or a string literal cut a statement in two, and a
 * migration that failed halfway stayed half applied. node-postgres sends a query without parameters as
 * one simple-query message, which PostgreSQL parses itself (comments, literals, dollar quotes) and runs as
 * one implicit transaction: the file is applied as written, all of it or none of it, as the regular
 * engine sends it (its `raw_cmd`, the simple query protocol). A statement that cannot run in a transaction
 * block (CREATE INDEX CONCURRENTLY) goes in a migration file of its own: a file of one statement is none.
 */
export function migrationAdapter(connectionString: string) {
  const pool = new Pool({ connectionString });
  const prismaPg = new PrismaPg(pool, { disposeExternalPool: true });
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: prismaPg.provider,
    adapterName: prismaPg.adapterName,
    connect: async () =>
      Object.assign(await prismaPg.connect(), { executeScript: (script: string) => runScript(pool, script) }),
    // deploy and diff (from schema files) need no shadow database.
    connectToShadowDb: () => prismaPg.connectToShadowDb(),
  };
  return bindMigrationAwareSqlAdapterFactory(factory);
}

/** The whole script in one simple-query message; a database error reaches the engine as the adapter reports it. */
async function runScript(pool: Pool, script: string): Promise<void> {
  try {
    await pool.query(script);
  } catch (err) {
    if (!(err instanceof DatabaseError)) throw err;
    throw new DriverAdapterError({
      kind: 'postgres',
      code: err.code ?? 'N/A',
      severity: err.severity ?? 'N/A',
      message: err.message,
      detail: err.detail,
      column: err.column,
      hint: err.hint,
    });
  }
}
