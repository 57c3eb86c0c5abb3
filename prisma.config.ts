import { defineConfig } from 'prisma/config';

// The regular Prisma CLI reads this where its engine binary can be downloaded; on machines without
// that host, `pnpm db:migrate` (scripts/migrate.ts) uses the WebAssembly engine instead.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/rolelink' },
});
