import type { StripPreviewView } from '@rolelink/contracts';
import styles from './StripPreviewPanel.module.css';
import { FieldErrorText } from './Field';

const PERSON = { you: 'you', admin: 'an admin' } as const;

/** "a, b, c and 12 more": the sample by name (or id where the platform had no name), then the rest as a count. */
function sampleText(p: StripPreviewView): string {
  const names = p.sample.map((m) => m.name ?? m.user_id);
  const more = p.count - names.length;
  return more > 0 ? `${names.join(', ')} and ${more.toLocaleString()} more` : names.join(', ');
}

/** "2 skipped: 1 left the server, 1 deleted their account (nothing to lose)"; null when none was. */
function skippedText(p: StripPreviewView): string | null {
  const { not_in_server: left, deleted } = p.skipped;
  if (left + deleted === 0) return null;
  const parts = [
    left ? `${left.toLocaleString()} left the server` : null,
    deleted ? `${deleted.toLocaleString()} deleted their account` : null,
  ].filter((x) => x !== null);
  return `${(left + deleted).toLocaleString()} skipped: ${parts.join(', ')} (they no longer hold the role, so they have nothing to lose).`;
}

/**
 * What "also remove the role" will do, inside the delete dialog: the exact number of members who lose the
 * role (only those this link gave it to), a sample by name, how many it skipped (members who left or deleted
 * their account hold nothing to lose), and the lock-out warning with its own
 * confirmation when any admin (the acting one first) would lose Administrator or Manage Server. The owner is
 * never among them: the platform gives the owner every permission whatever their roles.
 */
export function StripPreviewPanel(props: {
  preview: StripPreviewView | null;
  error: string | null;
  lockoutConfirmed: boolean;
  onLockoutConfirmed: (on: boolean) => void;
  checkboxId: string;
  disabled: boolean;
}) {
  const { preview: p, error } = props;
  if (error) return <FieldErrorText>Who would lose the role could not be loaded: {error}</FieldErrorText>;
  if (!p) return <p aria-busy="true">Counting the members this link gave the role to…</p>;
  return (
    <div className={styles.preview}>
      {p.count === 0 ? (
        <p>
          No member got the role through this link, so nobody loses it. Members who held it before the link, or were
          given it by hand, keep it.
        </p>
      ) : (
        <p>
          <strong>
            {p.count.toLocaleString()} {p.count === 1 ? 'member loses' : 'members lose'} the role
          </strong>
          : {sampleText(p)}. Members who held it before the link, or were given it by hand, keep it.
        </p>
      )}
      {skippedText(p) ? <p>{skippedText(p)}</p> : null}
      {p.lockout.length || !p.lockout_checked ? (
        <div className={styles.lockout} role="alert">
          {p.lockout.map((l) => (
            <p key={l.user_id}>
              ⚠ {l.name ?? l.user_id} ({PERSON[l.who]}) would lose <strong>{l.permission}</strong>: this role is the
              only one that gives it. {l.who === 'you' ? 'You' : 'They'} could no longer manage this server here.
            </p>
          ))}
          {p.lockout_checked ? null : (
            <p>
              ⚠ Whether this locks an admin out could not be checked (the platform could not be asked, or the role goes
              from too many members to check each).
            </p>
          )}
          <div className="checkbox-row">
            <input
              type="checkbox"
              id={props.checkboxId}
              checked={props.lockoutConfirmed}
              disabled={props.disabled}
              onChange={(e) => props.onLockoutConfirmed(e.target.checked)}
            />
            <label htmlFor={props.checkboxId}>I understand: remove the role anyway</label>
          </div>
        </div>
      ) : null}
    </div>
  );
}
