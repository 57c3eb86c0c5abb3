/**
 * The bodies the service sends to a plugin (spec 4.2): declared once in @rolelink/wire-types, which
 * the plugin SDK ships too, and named here so the broker and `rolelink plugin check` type what they send.
 */
export type { PluginConfigSubmitBody, PluginLinkBody, PluginRegisterBody } from '@rolelink/wire-types';
