import type { ReactNode } from 'react';
import styles from './Badge.module.css';

export type BadgeTone = 'neutral' | 'success' | 'warning' | 'danger' | 'info' | 'accent';

export function Badge({
  tone = 'neutral',
  children,
  title,
}: {
  tone?: BadgeTone;
  children: ReactNode;
  title?: string | undefined;
}) {
  return (
    <span className={`${styles.badge} ${styles[tone] ?? ''}`} title={title}>
      {children}
    </span>
  );
}

/** Badges side by side, wrapping on a narrow screen. */
export function BadgeRow({ children }: { children: ReactNode }) {
  return <div className={styles.row}>{children}</div>;
}
