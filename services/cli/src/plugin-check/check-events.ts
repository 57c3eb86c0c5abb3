import { randomUUID } from 'node:crypto';
import type { PluginEvent, PluginLinkBody } from '@rolelink/contracts';
import type { PluginRequest } from '@rolelink/plugin-http';
import { signEvent } from '@rolelink/plugin-sdk';
import type { Finding } from './report';

/** The broker's POST /events timeout (services/plugin-broker DEFAULT_EVENT_DELIVERY). */
const EVENTS_TIMEOUT_MS = 5_000;

type EventsContext<A> = {
  token: string;
  link: PluginLinkBody;
  call: (req: PluginRequest) => Promise<A>;
  add: (f: Finding) => void;
  describe: (a: A) => string;
  is2xx: (a: A) => boolean;
  kinds: readonly string[];
};

/** The check's signed test event (`seq` 0, never recorded by the service). */
export function testPingEvent(link: PluginLinkBody): PluginEvent {
  return {
    id: `evt_check_${randomUUID()}`,
    type: 'test.ping',
    timestamp: new Date().toISOString(),
    guild_id: link.guild_id,
    role_id: link.role_id,
    seq: 0,
    data: { message: 'rolelink plugin check' },
  };
}

/**
 * `rolelink plugin check`, when the plugin asks for events: POST /events with a signed `test.ping`
 * (exactly as the broker signs deliveries) must answer 2xx; the same event with a wrong signature should
 * be refused (a plugin that accepts it does not verify signatures: anyone could send it events).
 */
export async function checkEvents<A>(base: string, c: EventsContext<A>): Promise<void> {
  const event = () => testPingEvent(c.link);
  const send = (e: PluginEvent, signingToken: string) => {
    const body = JSON.stringify(e);
    return c.call({
      method: 'POST',
      url: `${base}/events`,
      token: c.token,
      rawJson: body,
      headers: { ...signEvent(signingToken, e.id, body) },
      timeoutMs: EVENTS_TIMEOUT_MS,
    });
  };
  const signed = await send(event(), c.token);
  const ok = c.is2xx(signed);
  c.add({
    check: 'POST /events',
    result: ok ? 'pass' : 'fail',
    message: `${c.describe(signed)} to a signed test event (asks for ${c.kinds.join(', ')})${ok ? '' : ': the service would retry each event for 24 h, then drop it'}`,
  });
  if (!ok) return;
  const forged = await send(event(), `${c.token}-wrong`);
  const refused = !c.is2xx(forged);
  c.add({
    check: 'POST /events signature',
    result: refused ? 'pass' : 'fail',
    message: refused
      ? `a wrongly signed event is refused (${c.describe(forged)})`
      : 'a wrongly signed event was accepted: verify webhook-signature (verifyEvent in the SDK)',
  });
}
