import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { guildPath } from '../paths';
import styles from './Breadcrumbs.module.css';

/**
 * The trail above a page: Servers / <server> / <this page>. The server's own page leaves `guildId` out;
 * until the server's name has loaded its link reads "Server".
 */
export function Breadcrumbs({
  guildId,
  guildName,
  current,
}: {
  guildId?: string;
  guildName?: string | undefined;
  current: ReactNode;
}) {
  return (
    <nav className={styles.breadcrumbs} aria-label="Breadcrumb">
      <Link to="/">Servers</Link>
      <span aria-hidden="true"> / </span>
      {guildId !== undefined ? (
        <>
          <Link to={guildPath(guildId)}>{guildName ?? 'Server'}</Link>
          <span aria-hidden="true"> / </span>
        </>
      ) : null}
      <span aria-current="page">{current}</span>
    </nav>
  );
}
