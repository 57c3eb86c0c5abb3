import { relativeTime } from '../format/duration';

const formatter = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

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
