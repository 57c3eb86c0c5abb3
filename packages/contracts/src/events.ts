import { z } from 'zod';
import type { PluginEventKind, PluginEventPayloads } from '@rolelink/wire-types';

export type { PluginEvent, PluginEventKind, PluginEventPayloads } from '@rolelink/wire-types';

/** Every kind the service can record (docs/api.md "Events to plugins"); `test.ping` is never recorded. */
export const PLUGIN_EVENT_KINDS = [
  'member.not_in_guild',
  'member.role_restored',
  'member.expired',
  'removal.held',
  'removal.applied',
  'list.resend_requested',
  'link.paused',
  'link.resumed',
  'link.disabled',
  'link.enabled',
  'link.deleted',
  'sync.first_completed',
] as const satisfies readonly PluginEventKind[];
export type RecordedEventKind = (typeof PLUGIN_EVENT_KINDS)[number];
export type RecordedEventData<K extends RecordedEventKind> = PluginEventPayloads[K];

const known = new Set<string>(PLUGIN_EVENT_KINDS);

/**
 * The `events` list of a /register answer or /health report: at most 50 names; names the service does
 * not know (a newer plugin) are kept out of the subscription rather than failing the answer.
 */
export const eventKindsList = z.array(z.string().max(60)).max(50);

/** The kinds of a list that the service records, deduplicated, in catalog order. */
export function subscribedKinds(list: readonly string[]): RecordedEventKind[] {
  const wanted = new Set(list.filter((k) => known.has(k)));
  return PLUGIN_EVENT_KINDS.filter((k) => wanted.has(k));
}

/** POST /register's answer: any 2xx confirms (spec 4.2); a JSON body may carry `events`. */
export const registerAnswer = z.object({ events: eventKindsList.optional() });

/** Delivery states of a recorded event. */
export const EVENT_STATES = ['pending', 'delivered', 'dropped'] as const;
export type EventState = (typeof EVENT_STATES)[number];

/** One event in the delivery log (CLI `rolelink link events`, dashboard). */
export type EventLogView = {
  id: string;
  seq: number;
  kind: string;
  created_at: string;
  state: EventState;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: { at: string; http_status: number | null; error: string | null; latency_ms: number | null }[];
};

/** A link's delivery log (dashboard GET …/links/:roleId/events, `rolelink link events`): the kinds its plugin asked for, newest events first. */
export type LinkEventLog = { link_id: string; kinds: string[]; events: EventLogView[] };
