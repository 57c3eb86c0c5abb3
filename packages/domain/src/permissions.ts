/** Permission bits the service reasons about (the platform's values; decimal strings on the wire). */
export const ADMINISTRATOR = 0x8n;
export const MANAGE_GUILD = 0x20n;
export const MANAGE_ROLES = 0x10000000n;

/** What opens the dashboard (and the platform's server settings): Administrator or Manage Server. */
export function grantsManageServer(permissions: bigint): boolean {
  return (permissions & (ADMINISTRATOR | MANAGE_GUILD)) !== 0n;
}

export type ManagePermission = 'Administrator' | 'Manage Server';

/**
 * Which of Administrator or Manage Server a member loses when one role is taken away: `role` is that
 * role's permissions, `others` the union of every other role they keep (with the @everyone role's).
 * Null when they keep both (or never had them through this role).
 */
export function lostManagePermission(role: bigint, others: bigint): ManagePermission | null {
  if ((role & ADMINISTRATOR) !== 0n && (others & ADMINISTRATOR) === 0n) return 'Administrator';
  if (grantsManageServer(role) && !grantsManageServer(others)) return 'Manage Server';
  return null;
}
