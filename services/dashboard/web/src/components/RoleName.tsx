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

export function roleLabel(role: DashboardRole | null, roleId: string): string {
  return role ? role.name : `Deleted role (${roleId})`;
}

export function RoleName({ role, roleId }: { role: DashboardRole | null; roleId: string }) {
  return (
    <span className={styles.roleName}>
      <RoleSwatch color={role?.color} />
      <span>{roleLabel(role, roleId)}</span>
    </span>
  );
}
