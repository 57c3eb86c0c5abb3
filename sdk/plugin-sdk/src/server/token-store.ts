import { createHash, timingSafeEqual } from 'node:crypto';

/** What a plugin keeps per role link from POST /register (spec 4.2 rule 1). */
export type RegisteredLink = { guildId: string; roleId: string; token: string };

/**
 * Where registrations live. Plug in your database; `MemoryTokenStore` is for tests and demos. Tokens
 * are credentials: store them encrypted or at least access-controlled, never log them.
 */
export interface TokenStore {
  save(link: RegisteredLink): void | Promise<void>;
  get(guildId: string, roleId: string): RegisteredLink | undefined | Promise<RegisteredLink | undefined>;
  /** GET /config names no link, only the token: the store finds the link a token belongs to. */
  findByToken(token: string): RegisteredLink | undefined | Promise<RegisteredLink | undefined>;
  delete(guildId: string, roleId: string): void | Promise<void>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Compares two tokens in constant time (through their digests, so lengths leak nothing either). */
export function sameToken(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export class MemoryTokenStore implements TokenStore {
  private readonly links = new Map<string, RegisteredLink>();

  save(link: RegisteredLink): void {
    this.links.set(`${link.guildId}:${link.roleId}`, { ...link });
  }

  get(guildId: string, roleId: string): RegisteredLink | undefined {
    return this.links.get(`${guildId}:${roleId}`);
  }

  findByToken(token: string): RegisteredLink | undefined {
    return [...this.links.values()].find((l) => sameToken(l.token, token));
  }

  delete(guildId: string, roleId: string): void {
    this.links.delete(`${guildId}:${roleId}`);
  }

  all(): RegisteredLink[] {
    return [...this.links.values()];
  }
}
