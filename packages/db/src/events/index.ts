// @rolelink/db/events: signed events to plugins (plugin_event_link, plugin_event, plugin_event_attempt):
// opt-in, recording (recordEvent), the broker's ordered delivery, the delivery log, resends and retention.
export * from './plugin-events.repo';
export * from './plugin-event-emit.repo';
