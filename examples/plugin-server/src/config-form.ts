import { configForm, fields as f, iframeResponse, section, type ValuesOf } from '@rolelink/plugin-sdk';
import { LABEL_MAX, MEMBER_COUNT_MAX, SOURCES, TEAMS, TIMEZONES } from './demo-config';

/**
 * GET /config answers (spec 2.6 to 2.11), built with the SDK's typed config-schema builder. The
 * schema-mode form uses every field type, both kinds of condition, collapsible sections and a range pair, so that a new user of the local stack (and the
 * dashboard's browser tests) see the whole configuration contract. Only `member_count` changes the
 * pushed list; the other settings are saved and shown back.
 */

export const PLUGIN_NAME = 'Demo member list';

const option = <V extends string>(label: string, value: V) => ({ label, value });
const titled = <V extends string>(values: readonly V[]) =>
  values.map((v) => option(v[0]!.toUpperCase() + v.slice(1), v));

const SOURCE_LABELS: Record<(typeof SOURCES)[number], string> = {
  all: 'Everyone in the guild',
  level: 'Members with a minimum level',
  teams: 'Members of chosen teams',
  manual: 'A fixed list of IDs',
};

const ABOUT = [
  'This is the **example plugin server** of the Role Link Service. It grants the role to the first *N* members of the demo guild, where N is `member_count`.',
  'The other settings are saved and shown back to demonstrate every field type; they do not change the pushed list.',
  'The embedded-page mode relies on [CSP frame-ancestors](https://developer.mozilla.org/en-US/docs/Web/HTTP/Reference/Headers/Content-Security-Policy/frame-ancestors) and window messages: https://developer.mozilla.org/en-US/docs/Web/API/Window/postMessage',
].join('\n');

const COMPUTED = ['all', 'level', 'teams'];

const form = configForm({
  name: PLUGIN_NAME,
  description: 'Grants the role to the first N members of the demo guild.',
  sections: [
    section(
      'Members',
      [
        f.display('about', 'About this plugin', ABOUT),
        f.number('member_count', 'How many demo members hold the role', {
          description: 'The plugin replaces the role’s list with this many consecutive demo member IDs.',
          step: 1,
          suffix: 'members',
          default_value: 20,
          validation: { required: true, min: 0, max: MEMBER_COUNT_MAX },
        }),
        f.text('label', 'A label for this link', {
          description: 'Shown in the plugin’s logs and embedded page.',
          placeholder: 'Demo',
          validation: { max: LABEL_MAX },
        }),
      ],
      { description: 'Who the demo list contains.' },
    ),

    section(
      'Who qualifies',
      [
        f.radio('source', 'Members come from', {
          options: SOURCES.map((s) => option(SOURCE_LABELS[s], s)),
          default_value: 'all',
        }),
        f.slider('min_level', 'Minimum level', {
          condition: { field: 'source', equals: 'level' },
          min: 0,
          max: 100,
          step: 5,
          default_value: 10,
          show_value: true,
          suffix: ' lvl',
        }),
        f.multiSelect('teams', 'Teams', {
          description: 'Pick one or two.',
          condition: { field: 'source', equals: 'teams' },
          options: titled(TEAMS),
          default_value: ['red'],
          max_selections: 2,
          validation: { required: true },
        }),
        f.textarea('manual_ids', 'User IDs', {
          description: 'One 17 to 20 digit user ID per line, e.g. 100000000000000000.',
          condition: { field: 'source', equals: 'manual' },
          rows: 6,
          validation: {
            max: 5000,
            pattern: '^(\\d{17,20}\\s*)*$',
            pattern_message: 'One 17 to 20 digit user ID per line',
          },
        }),
        f.checkbox('exclude_bots', 'Leave out bot accounts', {
          condition: { field: 'source', equals_any: COMPUTED },
          default_value: true,
        }),
        f.checkbox('include_inactive', 'Include inactive members', {
          condition: { field: 'source', equals_any: COMPUTED },
          default_value: false,
        }),
        f.number('inactive_after_days', 'A member is inactive after', {
          // Both must hold (AND): only meaningful when inactive members are left out of a computed list.
          conditions: [
            { field: 'source', equals_any: COMPUTED },
            { field: 'include_inactive', equals: false },
          ],
          step: 1,
          suffix: 'days',
          default_value: 30,
          validation: { min: 1, max: 365 },
        }),
      ],
      { description: 'How a real plugin would pick its members.' },
    ),

    section(
      'Sync schedule',
      [
        f.number('sync_start_hour', 'Sync window', {
          description:
            'Hours of the day (0 to 23) during which the list is refreshed. The end must come after the start.',
          step: 1,
          suffix: ':00',
          default_value: 9,
          validation: { min: 0, max: 23 },
        }),
        // The end of a range pair: rendered inline after the start, its own label hidden (spec 2.9).
        f.number('sync_end_hour', 'Sync window end', {
          pair_with: 'sync_start_hour',
          step: 1,
          suffix: ':00',
          default_value: 18,
          validation: { min: 0, max: 23 },
        }),
        f.slider('sync_interval_minutes', 'Refresh every', {
          min: 5,
          max: 120,
          step: 5,
          default_value: 30,
          show_value: true,
          suffix: ' min',
        }),
        f.select('timezone', 'Time zone', {
          options: TIMEZONES.map((t) => option(t, t)),
          default_value: 'UTC',
          validation: { required: true },
        }),
      ],
      { description: 'When the plugin refreshes the list.', collapsible: true },
    ),

    section(
      'Notifications',
      [
        f.toggle('notify', 'Notify a webhook when the list changes', { default_value: false }),
        f.url('webhook_url', 'Webhook URL', {
          condition: { field: 'notify', equals: true },
          placeholder: 'https://hooks.example.com/role-changes',
          validation: { required: true, pattern: '^https://', pattern_message: 'Use an https:// address' },
        }),
        f.secret('webhook_secret', 'Signing secret', {
          description: 'Each webhook call is signed with HMAC-SHA256 using this secret.',
          condition: { field: 'notify', equals: true },
          placeholder: 'at least 16 characters',
          validation: { min: 16, max: 200 },
        }),
        f.color('embed_color', 'Message colour', {
          condition: { field: 'notify', equals: true },
          default_value: '#5865F2',
        }),
      ],
      { collapsible: true },
    ),

    section(
      'Advanced',
      [
        f.text('external_group_id', 'Source group ID', {
          description: 'The group in your own system that this role mirrors.',
          placeholder: 'guild-members',
          validation: {
            min: 3,
            max: 64,
            pattern: '^[a-z0-9-]+$',
            pattern_message: 'Lowercase letters, digits and dashes only',
          },
        }),
        f.textarea('notes', 'Notes for other admins', { rows: 3, validation: { max: 1000 } }),
      ],
      { collapsible: true, default_collapsed: true },
    ),

    section('Configuration page', [
      f.select('ui_mode', 'Configuration page', {
        description: 'Save with “Embedded page” to configure this link on the plugin’s own page instead of this form.',
        options: [option('Form (schema)', 'schema'), option('Embedded page (iframe)', 'iframe')],
        default_value: 'schema',
        validation: { required: true },
      }),
    ]),
  ],
});

/** The form's values as the SDK types them from its fields. */
export type FormValues = ValuesOf<typeof form>;

const INPUT_KEYS = new Set<string>(form.fields.filter((field) => field.type !== 'display').map((field) => field.key));

/** GET /config in schema mode (spec 2.6), `values` = the saved config (keys of this form only). */
export function configSchema(saved: Record<string, unknown>) {
  // Saved settings passed demoConfig, whose keys and types are the form's; stale keys are dropped here.
  const values = Object.fromEntries(Object.entries(saved).filter(([key]) => INPUT_KEYS.has(key))) as FormValues;
  return form.response(values);
}

/**
 * GET /config in iframe mode (spec 2.11). `theme=light` is there to show that the dashboard keeps an
 * embed URL's own query parameters when it appends `rl_token` (spec 4.3).
 */
export function iframeConfig(publicUrl: string) {
  return iframeResponse({
    name: PLUGIN_NAME,
    description: 'This link is configured on the plugin’s own page. Use “Use the form instead” there to switch back.',
    embedUrl: `${publicUrl}/embed?theme=light`,
  });
}
