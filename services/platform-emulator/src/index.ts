export { startEmulator, type RunningEmulator } from './server';
export { createEmulatorApp } from './app';
export { EmulatorState, type EmulatorStateOptions, type SentMessage } from './emulator-state';
export {
  DEFAULT_CONFIG,
  DEFAULT_OPTIONS,
  type EmulatorOptions,
  type EmulatorConfig,
  type ConfigPatch,
  type OAuthClient,
} from './options';
export {
  correctlyInstalledGuild,
  parseSeed,
  seedSchema,
  type EmulatorSeed,
  type SeedChannel,
  type SeedGuild,
  type SeedMember,
  type SeedRole,
} from './seed';
export type { EmulatorStats } from './stats';
export type { AuditEntry } from './audit-log';
export type { WindowSpec } from './fixed-window';
export { ALL_PERMISSIONS } from './permissions';
export { CORRECT_BOT_PERMISSIONS, CORRECT_RULES, DEFAULT_RULES, type GuildRules } from './guild-rules';
export { type ExchangeListener, type PlatformExchange } from './http/exchange-recorder';
