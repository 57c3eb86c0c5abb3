import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { PluginEvent } from '@rolelink/wire-types';

export type { PluginEvent, PluginEventKind, PluginEventPayloads, PluginRegisterAnswer } from '@rolelink/wire-types';

/**
 * Signed events (docs/api.md "Events to plugins"): POST {plugin_url}/events carries Standard Webhooks
 * headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The signing secret is derived from
 * the link's API token, the one the plugin received on /register, so it needs no new secret handed
 * over; and it is not the token itself, so a signature key that leaks (logged by a webhook library,
 * say) cannot call the User Management API. Signing and verifying live together so both sides agree.
 */

export const EVENT_SECRET_LABEL = 'rolelink-events-v1';

/** The link's event secret in Standard Webhooks form (`whsec_` + base64 of HMAC-SHA256(token, label)). */
export function eventSecret(apiToken: string): string {
  return `whsec_${createHmac('sha256', apiToken).update(EVENT_SECRET_LABEL).digest('base64')}`;
}

export type EventHeaders = { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };

/** The headers of one delivery attempt of `body` (the exact bytes sent). Used by the service and by tests. */
export function signEvent(apiToken: string, id: string, body: string, at: Date = new Date()): EventHeaders {
  const signature = new Webhook(eventSecret(apiToken)).sign(id, at, body);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

export class EventVerificationError extends Error {
  override readonly name = 'EventVerificationError';
}

/**
 * Checks an incoming POST /events: signature over the raw body with the link's token, timestamp within
 * 5 minutes (replays of old requests fail), and the body's id equal to `webhook-id`. Returns the event;
 * throws EventVerificationError otherwise. `body` must be the raw bytes, not re-serialised JSON (a Buffer
 * is a Uint8Array; the type names no Node type so the SDK's declarations need no @types/node).
 */
export function verifyEvent(
  headers: Record<string, string | string[] | undefined>,
  body: string | Uint8Array,
  apiToken: string,
): PluginEvent {
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined) flat[k.toLowerCase()] = value;
  }
  let event: unknown;
  try {
    event = new Webhook(eventSecret(apiToken)).verify(
      typeof body === 'string' ? body : new TextDecoder().decode(body),
      flat,
    );
  } catch (err) {
    throw new EventVerificationError(
      err instanceof WebhookVerificationError ? err.message : 'body is not a signed JSON event',
    );
  }
  const e = event as Partial<PluginEvent> | null;
  if (typeof e?.type !== 'string' || e.id !== flat['webhook-id'])
    throw new EventVerificationError('the body is not the event the headers name');
  return e as PluginEvent;
}
