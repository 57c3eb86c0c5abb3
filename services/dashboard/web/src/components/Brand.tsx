import { Link } from 'react-router';
import styles from './Brand.module.css';

/** "Role Link" with its mark: a link home in the header, a large title on the sign-in screen. */
export function Brand({ large = false }: { large?: boolean }) {
  const mark = <span className={styles.mark} aria-hidden="true" />;
  if (large) {
    return (
      <p className={`${styles.brand} ${styles.large}`}>
        {mark}
        Role Link
      </p>
    );
  }
  return (
    <Link to="/" className={styles.brand}>
      {mark}
      Role Link
    </Link>
  );
}
