import type { PoolClient } from 'pg';
import type { Queryable } from '@rolelink/db/client';
import { tryLockEventLink, unlockEventLink } from '@rolelink/db/client';
import type { BrokerContext } from '../context';

/** A link's delivery held by this process: `held()` turns false once the lock's session is gone. */
export type LinkHold = { held(): boolean; release(): Promise<void> };

/**
 * The per-link delivery locks of one broker process: PostgreSQL session advisory locks, all on one
 * connection kept for them. A lock lasts as long as that connection, not for a time: a broker that
 * stalls (a paused process, a backlog sent to a slow plugin) keeps its links, so no other replica sends a
 * later event while it still holds an earlier one; a broker that dies frees them with its connection.
 * Session locks are re-entrant, so the process also keeps a set of its own links: two jobs of one link
 * in one process are as exclusive as two in two processes.
 */
class EventLinkLocks {
  private connecting: Promise<PoolClient> | null = null;
  private client: PoolClient | null = null;
  /** Bumped when the connection goes: the holds taken on it are void (their locks went with it). */
  private generation = 0;
  private readonly links = new Set<string>();
  private closed = false;

  constructor(private readonly db: Queryable) {}

  async take(linkId: string): Promise<LinkHold | null> {
    if (this.closed || this.links.has(linkId)) return null;
    this.links.add(linkId);
    let client: PoolClient | null = null;
    try {
      client = await this.connection();
      const generation = this.generation;
      if (!(await tryLockEventLink(client, linkId))) {
        this.links.delete(linkId);
        return null;
      }
      const own = client;
      let released = false;
      return {
        held: () => !released && generation === this.generation,
        release: async () => {
          if (released) return;
          released = true;
          this.links.delete(linkId);
          if (generation !== this.generation) return;
          await unlockEventLink(own, linkId).catch(() => this.drop(own));
        },
      };
    } catch (err) {
      this.links.delete(linkId);
      if (client) this.drop(client);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => null)) ?? null;
    if (client) this.drop(client);
  }

  private connection(): Promise<PoolClient> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      try {
        const client = 'release' in this.db ? this.db : await this.db.connect();
        // A lost connection takes its locks along: the holds on it stop their senders at the next event.
        client.on('error', () => this.drop(client));
        this.client = client;
        return client;
      } finally {
        this.connecting = null;
      }
    })();
    return this.connecting;
  }

  /** Forgets the connection (and with it every lock of this process): the next take opens another. */
  private drop(client: PoolClient): void {
    if (this.client !== client) return;
    this.client = null;
    this.generation++;
    if (client !== this.db) client.release(true);
  }
}

const locksByContext = new WeakMap<BrokerContext, EventLinkLocks>();

/** The event delivery locks of a broker context (one set per process, made on first use). */
export function eventLinkLocks(ctx: BrokerContext): Pick<EventLinkLocks, 'take'> {
  let locks = locksByContext.get(ctx);
  if (!locks) locksByContext.set(ctx, (locks = new EventLinkLocks(ctx.sessionDb ?? ctx.db)));
  return locks;
}

/** Gives back the connection of the context's locks (the broker's close); later deliveries find every link busy. */
export async function closeEventLinkLocks(ctx: BrokerContext): Promise<void> {
  await locksByContext.get(ctx)?.close();
}
