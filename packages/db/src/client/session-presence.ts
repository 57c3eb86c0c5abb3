import type { PoolClient } from 'pg';
import type { Db } from './client';

/**
 * One connection of the session pool kept open for the life of the process, so that pg_stat_activity
 * shows this process's application_name as long as it lives. An Idempotency-Key claim names its claimant
 * by that name and is taken over only once no connection of the name is left (idempotency.repo.ts).
 * Through a transaction pooler the process may own no server connection between two statements, so the
 * claim of a live request could look abandoned; this connection, to PostgreSQL directly, prevents that.
 * Nothing to hold when the session pool is the pool itself (no pooler): the claim's own connections do.
 * A lost connection is opened again after a second.
 */
export function holdPresence(db: Db): { close(): Promise<void> } {
  if (db.session === db.pool) return { close: () => Promise.resolve() };
  let client: PoolClient | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  const connect = async (): Promise<void> => {
    timer = null;
    if (closed) return;
    try {
      const c = await db.session.connect();
      if (closed) return c.release();
      c.once('error', () => {
        if (client === c) client = null;
        c.release(true);
        if (!closed) timer = setTimeout(() => void connect(), 1_000);
      });
      client = c;
    } catch {
      if (!closed) timer = setTimeout(() => void connect(), 1_000);
    }
  };
  void connect();
  return {
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      client?.release();
      client = null;
      return Promise.resolve();
    },
  };
}
