import { relativeTime } from '../format/duration';

const formatter = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The app's one date format ("Jan 5, 2025, 3:04 PM"), for text that cannot hold a <DateTime> (titles, labels). */
export function formatDateTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : formatter.format(at);
}

/** An ISO time as "Jan 5, 2025, 3:04 PM (5 min ago)" in a <time> element; the exact value in the title. */
export function DateTime({ iso, relative = true }: { iso: string; relative?: boolean }) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return <span>{iso}</span>;
  return (
    <time dateTime={iso} title={at.toISOString()}>
      {formatter.format(at)}
      {relative ? ` (${relativeTime(iso)})` : ''}
    </time>
  );
}
