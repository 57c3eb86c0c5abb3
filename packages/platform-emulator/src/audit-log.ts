export type AuditEntry = {
  guildId: string;
  action: 'member_role_add' | 'member_role_remove';
  userId: string;
  roleId: string;
  /** The decoded `X-Audit-Log-Reason`, or null when the request carried none. */
  reason: string | null;
  /** False for an idempotent repeat (the member already had, or already lacked, the role). */
  changed: boolean;
  at: string;
};

const KEEP = 10_000;

/** The most recent role changes with their reasons, newest last; bounded so long runs stay small. */
export class AuditLog {
  private entries: AuditEntry[] = [];

  record(entry: AuditEntry): void {
    this.entries.push(entry);
    if (this.entries.length > KEEP * 1.5) this.entries = this.entries.slice(-KEEP);
  }

  list(guildId?: string, limit = KEEP): AuditEntry[] {
    const matching = guildId ? this.entries.filter((e) => e.guildId === guildId) : this.entries;
    return matching.slice(-limit);
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
