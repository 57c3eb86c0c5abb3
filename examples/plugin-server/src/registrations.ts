import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type Registration = { guildId: string; roleId: string; token: string; config: Record<string, unknown> };

const key = (guildId: string, roleId: string) => `${guildId}:${roleId}`;
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * What the plugin remembers per role link: the token it was given at /register (spec 4.2 rule 1) and
 * the saved form values. Kept in a JSON file (mode 600) so a restarted demo still holds its tokens.
 */
export class Registrations {
  private readonly byLink = new Map<string, Registration>();

  constructor(private readonly file: string | null) {
    if (file && existsSync(file)) {
      for (const r of JSON.parse(readFileSync(file, 'utf8')) as Registration[]) this.byLink.set(key(r.guildId, r.roleId), r);
    }
  }

  put(r: Registration): void {
    this.byLink.set(key(r.guildId, r.roleId), r);
    this.save();
  }

  get(guildId: string, roleId: string): Registration | undefined {
    return this.byLink.get(key(guildId, roleId));
  }

  delete(guildId: string, roleId: string): boolean {
    const had = this.byLink.delete(key(guildId, roleId));
    this.save();
    return had;
  }

  /** The registration a token belongs to (GET /config names no link, only the token). Constant-time compare. */
  byToken(token: string): Registration | undefined {
    const want = digest(token);
    return [...this.byLink.values()].find((r) => timingSafeEqual(digest(r.token), want));
  }

  all(): Registration[] {
    return [...this.byLink.values()];
  }

  private save(): void {
    if (!this.file) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.all(), null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
