// Whether the database holds every migration an image ships: `migrate status` reports it, `migrate wait`
// blocks until it is so. The Deployments run `wait` as an init container (k8s/*.yaml), so a pod of a new
// release starts its service only once the migrate Job has brought the schema to the release's version,
// even though `kubectl apply -k` creates the Job and the new pods at once. Plain pg, no schema engine: an
// init container has nothing to apply, only a table to read (Prisma's _prisma_migrations, as it records it).
import { Client } from 'pg';

export type MigrationStatus = {
  /** Shipped and finished (not rolled back). */
  applied: string[];
  /** Shipped and not recorded at all: the migrate Job has not reached them. */
  pending: string[];
  /** Shipped and started but not finished: running now, or failed (the migrate Job's log says which). */
  unfinished: string[];
  /** Finished in the database but not shipped by this image: the database is ahead (a rollback runs older code). */
  ahead: string[];
};

export const isCurrent = (s: MigrationStatus) => s.pending.length === 0 && s.unfinished.length === 0;

export async function migrationStatus(connectionString: string, shipped: readonly string[]): Promise<MigrationStatus> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client
      .query<{ name: string; finished: boolean; rolled_back: boolean }>(
        'SELECT migration_name AS name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back FROM _prisma_migrations',
      )
      // 42P01: no such table. A database no migration has touched yet: everything is pending.
      .catch((err: { code?: string }) => (err.code === '42P01' ? { rows: [] } : Promise.reject(err as Error)));
    const finished = new Set(rows.filter((r) => r.finished && !r.rolled_back).map((r) => r.name));
    const started = new Set(rows.filter((r) => !r.finished && !r.rolled_back).map((r) => r.name));
    const ours = new Set(shipped);
    return {
      applied: shipped.filter((n) => finished.has(n)),
      pending: shipped.filter((n) => !finished.has(n) && !started.has(n)),
      unfinished: shipped.filter((n) => !finished.has(n) && started.has(n)),
      ahead: [...finished].filter((n) => !ours.has(n)).sort(),
    };
  } finally {
    await client.end();
  }
}

export function describeStatus(s: MigrationStatus): string[] {
  const lines = [`${s.applied.length} migration(s) of this image applied`];
  for (const n of s.pending) lines.push(`pending: ${n}`);
  for (const n of s.unfinished)
    lines.push(`started, not finished (running, or failed: see the migrate Job's log): ${n}`);
  for (const n of s.ahead)
    lines.push(
      `applied, not shipped by this image (the database is ahead; fine for a rollback, docs/operations.md): ${n}`,
    );
  lines.push(isCurrent(s) ? 'schema is current for this image' : 'schema is behind this image');
  return lines;
}

/**
 * Polls until every shipped migration is applied. Logs when what it waits for changes (not on every
 * poll), and keeps polling through connection errors: the database may be restarting too.
 */
export async function waitForMigrations(
  connectionString: string,
  shipped: readonly string[],
  log: (line: string) => void,
  pollMs = 2_000,
): Promise<void> {
  let last = '';
  for (;;) {
    let said: string;
    try {
      const s = await migrationStatus(connectionString, shipped);
      if (isCurrent(s)) {
        log(
          `schema is current: ${s.applied.length} migration(s) applied${s.ahead.length ? `, ${s.ahead.length} newer one(s) too` : ''}`,
        );
        return;
      }
      said = `waiting for ${s.pending.length + s.unfinished.length} migration(s): ${[...s.unfinished.map((n) => `${n} (started, not finished)`), ...s.pending].join(', ')}`;
    } catch (err) {
      said = `waiting: database not reachable (${err instanceof Error ? err.message : String(err)})`;
    }
    if (said !== last) log(said);
    last = said;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
