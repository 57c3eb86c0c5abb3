import type { EventLogPage } from '@rolelink/admin';
import { printable, type Printable } from './config';

/** `rolelink link events`: one line per event (newest first) and one per attempt; --json gives the page as is. */
export function eventLogPrintable(page: EventLogPage): Printable<EventLogPage> {
  const human: Record<string, unknown> = {
    link_id: page.link_id,
    kinds: page.kinds.length ? page.kinds.join(', ') : 'none (the plugin did not opt in)',
  };
  if (page.events.length === 0) human.events = 'none';
  for (const e of page.events) {
    const next = e.next_attempt_at ? `, next attempt ${e.next_attempt_at}` : '';
    human[`${e.id} #${e.seq}`] =
      `${e.kind} ${e.state} (${e.attempt_count} attempt${e.attempt_count === 1 ? '' : 's'}${next}), recorded ${e.created_at}`;
    e.attempts.forEach((a, i) => {
      human[`  ${e.id} attempt ${i + 1}`] =
        `${a.at} ${a.http_status !== null ? `HTTP ${a.http_status}` : (a.error ?? 'no answer')} ${a.latency_ms !== null ? `${a.latency_ms} ms` : ''}`.trimEnd();
    });
  }
  return printable(page, human);
}
