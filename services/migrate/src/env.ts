// The migrate command's configuration (scripts/migrate.ts, bundled into this package's dist/migrate.js),
// parsed like every service's (packages/runtime/src/env.ts): in
// production (NODE_ENV=production, which the images set) a missing DATABASE_URL or the local
// development default is refused, naming the variable, instead of migrating 127.0.0.1's database.
// Imported from the env module itself, not the package's index: the migrate bundle must not load the
// services' HTTP, logging and metrics libraries (scripts/build.ts checks its npm imports).
import { z } from 'zod';
import { envFields, parseEnv } from '@rolelink/runtime/src/env';

export const envSchema = z.object({
  NODE_ENV: envFields.nodeEnv,
  DATABASE_URL: envFields.databaseUrl,
  /** `migrate wait`: how often it looks again at _prisma_migrations. */
  MIGRATE_WAIT_POLL_MS: z.coerce.number().int().min(100).default(2_000),
});

export type MigrateEnv = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): MigrateEnv {
  return parseEnv(envSchema, source);
}
