import type { MemberLookup } from '@rolelink/contracts';
import { DateTime } from '../../components/DateTime';
import styles from './MemberHistory.module.css';
import { ScrollTable } from '../../components/ScrollTable';

const ACTION_TEXT: Record<MemberLookup['history'][number]['action'], string> = { add: 'Add', remove: 'Remove' };

/**
 * A member's recent role changes (newest first, as member-lookup returns them). Every cell is a React
 * text node: outcome and cause come from the sync engine and are never rendered as HTML.
 */
export function MemberHistory({
  history,
  outcomeText,
}: {
  history: MemberLookup['history'];
  outcomeText: (outcome: string) => string;
}) {
  if (history.length === 0) return <p className="muted small">No role changes recorded for this member.</p>;
  // Wrapped so a phone scrolls the table sideways instead of cutting its columns off.
  return (
    <ScrollTable label="Recent role changes table">
      {/* `member-history` stays as a plain name: the browser test finds the table's scrolling box by it. */}
      <table className={`member-history ${styles.history}`}>
        <caption>Recent role changes</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Change</th>
            <th scope="col">Outcome</th>
            <th scope="col">Cause</th>
          </tr>
        </thead>
        <tbody>
          {history.map((h, i) => (
            <tr key={`${h.at}-${i}`}>
              <td>
                <DateTime iso={h.at} />
              </td>
              <td>{ACTION_TEXT[h.action]}</td>
              <td>{outcomeText(h.outcome)}</td>
              <td>{h.cause}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
