import type { EmulatorConfig } from './options';

export type EmulatorStats = {
  /** Platform API requests received (control routes are not counted). */
  requests: number;
  /** Requests per route template, e.g. `PUT /guilds/:guildId/members/:userId/roles/:roleId`. */
  byRoute: Record<string, number>;
  /** Answers per HTTP status. */
  byStatus: Record<string, number>;
  /** 429 answers by `X-RateLimit-Scope` (`shared`: while the control API holds a guild's shared limit). */
  rateLimited: { user: number; global: number; shared: number };
  /** 429 answers given while the invalid-request ban was in force (the edge's HTML page; not in `rateLimited`). */
  bannedResponses: number;
  /** Invalid requests (401/403/429 except scope shared) in the current 10-minute window. */
  invalidRequests: number;
  invalidRequestsTotal: number;
  banned: boolean;
  banRemainingMs: number;
  /** Member-role PUT/DELETE answered 204: `unchanged` counts idempotent repeats. */
  roleChangesApplied: { added: number; removed: number; unchanged: number };
  /** Moderator hand edits through the control API or `state.setMemberRoles`. */
  handEdits: number;
  guilds: number;
  config: EmulatorConfig;
};

type Counters = Pick<
  EmulatorStats,
  | 'requests'
  | 'byRoute'
  | 'byStatus'
  | 'rateLimited'
  | 'bannedResponses'
  | 'invalidRequestsTotal'
  | 'roleChangesApplied'
  | 'handEdits'
>;

/** The mutable counters behind `stats()`; the state adds the live parts (ban, window, config). */
export class StatsCounters {
  private c: Counters = StatsCounters.empty();

  private static empty(): Counters {
    return {
      requests: 0,
      byRoute: {},
      byStatus: {},
      rateLimited: { user: 0, global: 0, shared: 0 },
      bannedResponses: 0,
      invalidRequestsTotal: 0,
      roleChangesApplied: { added: 0, removed: 0, unchanged: 0 },
      handEdits: 0,
    };
  }

  request(route: string): void {
    this.c.requests += 1;
    this.c.byRoute[route] = (this.c.byRoute[route] ?? 0) + 1;
  }

  status(code: number): void {
    this.c.byStatus[code] = (this.c.byStatus[code] ?? 0) + 1;
  }

  rateLimited(scope: 'user' | 'global' | 'shared'): void {
    this.c.rateLimited[scope] += 1;
  }

  bannedResponse(): void {
    this.c.bannedResponses += 1;
  }

  invalid(): void {
    this.c.invalidRequestsTotal += 1;
  }

  roleChange(outcome: 'added' | 'removed' | 'unchanged'): void {
    this.c.roleChangesApplied[outcome] += 1;
  }

  handEdit(): void {
    this.c.handEdits += 1;
  }

  snapshot(): Counters {
    return structuredClone(this.c);
  }

  reset(): void {
    this.c = StatsCounters.empty();
  }
}
