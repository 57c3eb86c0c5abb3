/**
 * One MEMBER_ROLE_UPDATE as the platform logs it: one edit of one member's roles, by one actor. A single
 * role call (PUT/DELETE …/roles/:r) is one role in `added` or `removed`; an edit of the whole list (PATCH
 * …/members/:u, a moderator's hand edit) groups every role it added and removed in the one entry, as the
 * platform does (its `$add` and `$remove` changes side by side).
 */
export type AuditRecord = {
  /** A snowflake, increasing in the order entries were recorded: the platform's entry id, and its `before`/`after` cursor. */
  id: string;
  guildId: string;
  /** Whose change it was: the bot for its own API calls, the moderator (default the guild's owner) for a hand edit. */
  actorId: string;
  userId: string;
  added: string[];
  removed: string[];
  /** The decoded `X-Audit-Log-Reason`, or null when the request carried none. */
  reason: string | null;
  /** False for an idempotent repeat (the member already had, or already lacked, the role): the platform logs nothing. */
  changed: boolean;
  at: string;
};

/** One role of a record, for tests that count calls per role (`state.auditLog()`); `id` is its record's. */
export type AuditEntry = Omit<AuditRecord, 'added' | 'removed'> & {
  action: 'member_role_add' | 'member_role_remove';
  roleId: string;
};

const KEEP = 10_000;
/** The platform's epoch (2015-01-01), from which snowflakes count milliseconds. */
const PLATFORM_EPOCH = 1_420_070_400_000n;

/** What `page()` selects, as the platform's GET /guilds/{id}/audit-logs query does. */
export type AuditPageQuery = {
  guildId: string;
  before?: bigint;
  after?: bigint;
  actorId?: string;
  targetId?: string;
  limit: number;
};

/** The most recent role changes with their reasons, newest last; bounded so long runs stay small. */
export class AuditLog {
  private entries: AuditRecord[] = [];
  private lastId = 0n;

  constructor(private readonly now: () => number = Date.now) {}

  record(entry: Omit<AuditRecord, 'id'>): AuditRecord {
    // A snowflake (ms since the epoch, 22 low bits free) that never goes backwards, even within one ms.
    const fromClock = (BigInt(this.now()) - PLATFORM_EPOCH) << 22n;
    this.lastId = fromClock > this.lastId ? fromClock : this.lastId + 1n;
    const full = { id: this.lastId.toString(), ...entry };
    this.entries.push(full);
    if (this.entries.length > KEEP * 1.5) this.entries = this.entries.slice(-KEEP);
    return full;
  }

  /** Each role of each record (a grouped record gives several, adds first), oldest first. */
  list(guildId?: string, limit = KEEP): AuditEntry[] {
    const matching = guildId ? this.entries.filter((e) => e.guildId === guildId) : this.entries;
    return matching
      .slice(-limit)
      .flatMap(({ added, removed, ...rest }) => [
        ...added.map((roleId) => ({ ...rest, action: 'member_role_add' as const, roleId })),
        ...removed.map((roleId) => ({ ...rest, action: 'member_role_remove' as const, roleId })),
      ]);
  }

  /**
   * The platform's page of a guild's log: changes only (an idempotent repeat changed nothing, so the
   * platform logs nothing). With `after` it is the `limit` entries right after that id — the page a
   * poller reads next — in ascending order (oldest first), as the docs say ("if `after` is used, the list
   * is reversed"); otherwise the newest `limit` entries below `before` (or of all), newest first.
   */
  page(q: AuditPageQuery): AuditRecord[] {
    const matching = this.entries.filter(
      (e) =>
        e.guildId === q.guildId &&
        e.changed &&
        (q.actorId === undefined || e.actorId === q.actorId) &&
        (q.targetId === undefined || e.userId === q.targetId) &&
        (q.before === undefined || BigInt(e.id) < q.before) &&
        (q.after === undefined || BigInt(e.id) > q.after),
    );
    if (q.after !== undefined) return matching.slice(0, q.limit);
    return matching.slice(-q.limit).reverse();
  }

  clear(): void {
    this.entries = [];
  }
}

/** The platform takes the reason URL-encoded, at most 512 characters; undecodable text is kept as sent. */
export function decodeReason(header: string | undefined): string | null {
  if (!header) return null;
  let text = header;
  try {
    text = decodeURIComponent(header);
  } catch {
    // keep the raw header: the platform would show it as sent
  }
  return text.slice(0, 512);
}
