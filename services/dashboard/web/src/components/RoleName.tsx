import type { DashboardRole } from '@rolelink/contracts';
import styles from './RoleName.module.css';

/** A role's colour swatch and name; the platform's "no colour" and a deleted role get a neutral swatch. */
export function RoleSwatch({ color }: { color: string | null | undefined }) {
  const safe = color && /^#[0-9a-fA-F]{6}$/.test(color) ? color : null;
  return (
    <span
      className={safe ? styles.swatch : `${styles.swatch} ${styles.neutral}`}
      style={safe ? { backgroundColor: safe } : undefined}
      aria-hidden="true"
    />
  );
}

/** `readable` false: the roles could not be read (the bot is out of the server), so the role is unknown, not deleted. */
export function roleLabel(role: DashboardRole | null, roleId: string, readable = true): string {
  return role ? role.name : readable ? `Deleted role (${roleId})` : `Role ${roleId}`;
}

export function RoleName({
  role,
  roleId,
  readable = true,
}: {
  role: DashboardRole | null;
  roleId: string;
  readable?: boolean;
}) {
  return (
    <span className={styles.roleName}>
      <RoleSwatch color={role?.color} />
      <span>{roleLabel(role, roleId, readable)}</span>
    </span>
  );
}
