/** Every in-app URL in one place, so pages and links agree. */
const seg = encodeURIComponent;

export function guildPath(guildId: string): string {
  return `/guilds/${seg(guildId)}`;
}

export function guildHealthPath(guildId: string): string {
  return `${guildPath(guildId)}/health`;
}

export function guildAuditPath(guildId: string): string {
  return `${guildPath(guildId)}/audit`;
}

export function guildNotificationsPath(guildId: string): string {
  return `${guildPath(guildId)}/notifications`;
}

export function newLinkPath(guildId: string): string {
  return `${guildPath(guildId)}/links/new`;
}

export function linkPaths(guildId: string, roleId: string) {
  const base = `${guildPath(guildId)}/links/${seg(roleId)}`;
  return {
    config: base,
    settings: `${base}/settings`,
    members: `${base}/members`,
    health: `${base}/health`,
    events: `${base}/events`,
  };
}

/** Where the platform's sign-in returns to: the current path, query and hash. */
export function loginHref(next: string): string {
  return `/auth/login?next=${seg(next)}`;
}
