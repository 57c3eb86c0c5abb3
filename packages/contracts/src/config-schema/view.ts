import type { ConfigStructure } from './schema';
import type { FieldError } from './limits';

/**
 * Where the form structure of a ConfigView came from:
 * - `plugin`: this GET /config answer;
 * - `cache`: the cached structure (under 5 minutes old) with fresh `values` from this answer;
 * - `fallback`: the plugin was unreachable or answered an invalid schema, so the last good structure is
 *   shown without fresh values (spec 4.2 rule 2); `fallback_reason` says which.
 */
export type ConfigSource = 'plugin' | 'cache' | 'fallback';

type ViewCommon = {
  source: ConfigSource;
  /** When the structure shown was fetched from the plugin (ISO 8601). */
  fetched_at: string;
  fallback_reason?: 'unreachable' | 'invalid_schema';
  /** With fallback_reason `invalid_schema`: what was wrong with the plugin's latest answer. */
  schema_errors?: FieldError[];
};

export type SchemaConfigView = ViewCommon & {
  ui_mode: 'schema';
  schema: ConfigStructure;
  values: Record<string, unknown>;
};

export type IframeConfigView = ViewCommon & {
  ui_mode: 'iframe';
  name: string;
  description?: string;
  /** The plugin's embed_url, with `rl_token` appended when a viewer was named (spec 4.3). */
  embed_url: string;
};

/** What fetchConfig answers: the validated form with fresh values, or the iframe page to embed. */
export type ConfigView = SchemaConfigView | IframeConfigView;
