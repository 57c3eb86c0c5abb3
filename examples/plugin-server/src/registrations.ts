import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sameToken, type RegisteredLink, type TokenStore } from '@rolelink/plugin-sdk';

export type Registration = { guildId: string; roleId: string; token: string; config: Record<string, unknown> };

const key = (guildId: string, roleId: string) => `${guildId}:${roleId}`;

/**
 * What the plugin remembers per role link: the token it was given at /register (spec 4.2 rule 1) and
 * the saved form values. Kept in a JSON file (mode 600) so a restarted demo still holds its tokens.
 * It is the SDK's TokenStore of this plugin: the SDK's handlers register, look up and delete through it.
 */
export class Registrations implements TokenStore {
  private readonly byLink = new Map<string, Registration>();

  constructor(private readonly file: string | null) {
    if (file && existsSync(file)) {
      for (const r of JSON.parse(readFileSync(file, 'utf8')) as Registration[])
        this.byLink.set(key(r.guildId, r.roleId), r);
    }
  }

  put(r: Registration): void {
    this.byLink.set(key(r.guildId, r.roleId), r);
    this.write();
  }

  /** TokenStore: a (re-)registration keeps the link's saved settings. */
  save(link: RegisteredLink): void {
    this.put({ ...link, config: this.get(link.guildId, link.roleId)?.config ?? {} });
  }

  /** The registration a token belongs to (GET /config names no link, only the token). Constant-time compare. */
  findByToken(token: string): Registration | undefined {
    return [...this.byLink.values()].find((r) => sameToken(r.token, token));
  }

  get(guildId: string, roleId: string): Registration | undefined {
    return this.byLink.get(key(guildId, roleId));
  }

  delete(guildId: string, roleId: string): void {
    this.byLink.delete(key(guildId, roleId));
    this.write();
  }

  all(): Registration[] {
    return [...this.byLink.values()];
  }

  private write(): void {
    if (!this.file) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.all(), null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
