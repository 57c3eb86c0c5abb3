import { LABEL_MAX, MEMBER_COUNT_MAX, SOURCES, TEAMS, TIMEZONES } from './demo-config';

/**
 * GET /config answers (spec 2.6 to 2.11). The schema-mode form uses every field type, both kinds of
 * condition, collapsible sections and a range pair, so that a new user of the local stack (and the
 * dashboard's browser tests) see the whole configuration contract. Only `member_count` changes the
 * pushed list; the other settings are saved and shown back.
 */

export const PLUGIN_NAME = 'Demo member list';

// Light local types (the example stands alone; the service's full rules are in @rolelink/contracts).
type FieldType = 'text' | 'textarea' | 'number' | 'select' | 'radio' | 'checkbox' | 'toggle' | 'secret' | 'url' | 'color' | 'slider' | 'multi_select' | 'display';
type FormField = { type: FieldType; key: string; label: string; [property: string]: unknown };
type FormSection = { title: string; description?: string; collapsible?: boolean; default_collapsed?: boolean; fields: FormField[] };

const option = (label: string, value: string | number) => ({ label, value });
const titled = (values: readonly string[]) => values.map((v) => option(v[0]!.toUpperCase() + v.slice(1), v));

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

const membersSection: FormSection = {
  title: 'Members',
  description: 'Who the demo list contains.',
  fields: [
    { type: 'display', key: 'about', label: 'About this plugin', value: ABOUT },
    {
      type: 'number',
      key: 'member_count',
      label: 'How many demo members hold the role',
      description: 'The plugin replaces the role’s list with this many consecutive demo member IDs.',
      step: 1,
      suffix: 'members',
      default_value: 20,
      validation: { required: true, min: 0, max: MEMBER_COUNT_MAX },
    },
    {
      type: 'text',
      key: 'label',
      label: 'A label for this link',
      description: 'Shown in the plugin’s logs and embedded page.',
      placeholder: 'Demo',
      validation: { max: LABEL_MAX },
    },
  ],
};

const selectionSection: FormSection = {
  title: 'Who qualifies',
  description: 'How a real plugin would pick its members.',
  fields: [
    {
      type: 'radio',
      key: 'source',
      label: 'Members come from',
      options: SOURCES.map((s) => option(SOURCE_LABELS[s], s)),
      default_value: 'all',
    },
    {
      type: 'slider',
      key: 'min_level',
      label: 'Minimum level',
      condition: { field: 'source', equals: 'level' },
      min: 0,
      max: 100,
      step: 5,
      default_value: 10,
      show_value: true,
      suffix: ' lvl',
    },
    {
      type: 'multi_select',
      key: 'teams',
      label: 'Teams',
      description: 'Pick one or two.',
      condition: { field: 'source', equals: 'teams' },
      options: titled(TEAMS),
      default_value: ['red'],
      max_selections: 2,
      validation: { required: true },
    },
    {
      type: 'textarea',
      key: 'manual_ids',
      label: 'User IDs',
      description: 'One 17 to 20 digit user ID per line, e.g. 100000000000000000.',
      condition: { field: 'source', equals: 'manual' },
      rows: 6,
      validation: { max: 5000, pattern: '^(\\d{17,20}\\s*)*$', pattern_message: 'One 17 to 20 digit user ID per line' },
    },
    {
      type: 'checkbox',
      key: 'exclude_bots',
      label: 'Leave out bot accounts',
      condition: { field: 'source', equals_any: ['all', 'level', 'teams'] },
      default_value: true,
    },
    {
      type: 'checkbox',
      key: 'include_inactive',
      label: 'Include inactive members',
      condition: { field: 'source', equals_any: ['all', 'level', 'teams'] },
      default_value: false,
    },
    {
      type: 'number',
      key: 'inactive_after_days',
      label: 'A member is inactive after',
      // Both must hold (AND): only meaningful when inactive members are left out of a computed list.
      conditions: [
        { field: 'source', equals_any: ['all', 'level', 'teams'] },
        { field: 'include_inactive', equals: false },
      ],
      step: 1,
      suffix: 'days',
      default_value: 30,
      validation: { min: 1, max: 365 },
    },
  ],
};

const scheduleSection: FormSection = {
  title: 'Sync schedule',
  description: 'When the plugin refreshes the list.',
  collapsible: true,
  fields: [
    {
      type: 'number',
      key: 'sync_start_hour',
      label: 'Sync window',
      description: 'Hours of the day (0 to 23) during which the list is refreshed. The end must come after the start.',
      step: 1,
      suffix: ':00',
      default_value: 9,
      validation: { min: 0, max: 23 },
    },
    // The end of a range pair: rendered inline after the start, its own label hidden (spec 2.9).
    { type: 'number', key: 'sync_end_hour', label: 'Sync window end', pair_with: 'sync_start_hour', step: 1, suffix: ':00', default_value: 18, validation: { min: 0, max: 23 } },
    { type: 'slider', key: 'sync_interval_minutes', label: 'Refresh every', min: 5, max: 120, step: 5, default_value: 30, show_value: true, suffix: ' min' },
    { type: 'select', key: 'timezone', label: 'Time zone', options: TIMEZONES.map((t) => option(t, t)), default_value: 'UTC', validation: { required: true } },
  ],
};

const notificationsSection: FormSection = {
  title: 'Notifications',
  collapsible: true,
  fields: [
    { type: 'toggle', key: 'notify', label: 'Notify a webhook when the list changes', default_value: false },
    {
      type: 'url',
      key: 'webhook_url',
      label: 'Webhook URL',
      condition: { field: 'notify', equals: true },
      placeholder: 'https://hooks.example.com/role-changes',
      validation: { required: true, pattern: '^https://', pattern_message: 'Use an https:// address' },
    },
    {
      type: 'secret',
      key: 'webhook_secret',
      label: 'Signing secret',
      description: 'Each webhook call is signed with HMAC-SHA256 using this secret.',
      condition: { field: 'notify', equals: true },
      placeholder: 'at least 16 characters',
      validation: { min: 16, max: 200 },
    },
    { type: 'color', key: 'embed_color', label: 'Message colour', condition: { field: 'notify', equals: true }, default_value: '#5865F2' },
  ],
};

const advancedSection: FormSection = {
  title: 'Advanced',
  collapsible: true,
  default_collapsed: true,
  fields: [
    {
      type: 'text',
      key: 'external_group_id',
      label: 'Source group ID',
      description: 'The group in your own system that this role mirrors.',
      placeholder: 'guild-members',
      validation: { min: 3, max: 64, pattern: '^[a-z0-9-]+$', pattern_message: 'Lowercase letters, digits and dashes only' },
    },
    { type: 'textarea', key: 'notes', label: 'Notes for other admins', rows: 3, validation: { max: 1000 } },
  ],
};

const pageSection: FormSection = {
  title: 'Configuration page',
  fields: [
    {
      type: 'select',
      key: 'ui_mode',
      label: 'Configuration page',
      description: 'Save with “Embedded page” to configure this link on the plugin’s own page instead of this form.',
      options: [option('Form (schema)', 'schema'), option('Embedded page (iframe)', 'iframe')],
      default_value: 'schema',
      validation: { required: true },
    },
  ],
};

const SECTIONS: FormSection[] = [membersSection, selectionSection, scheduleSection, notificationsSection, advancedSection, pageSection];
const INPUT_KEYS = new Set(SECTIONS.flatMap((s) => s.fields).filter((f) => f.type !== 'display').map((f) => f.key));

/** GET /config in schema mode (spec 2.6), `values` = the saved config (keys of this form only). */
export function configSchema(saved: Record<string, unknown>) {
  const values = Object.fromEntries(Object.entries(saved).filter(([key]) => INPUT_KEYS.has(key)));
  return {
    version: 1,
    ui_mode: 'schema',
    name: PLUGIN_NAME,
    description: 'Grants the role to the first N members of the demo guild.',
    sections: SECTIONS,
    values,
  };
}

/**
 * GET /config in iframe mode (spec 2.11). `theme=light` is there to show that the dashboard keeps an
 * embed URL's own query parameters when it appends `rl_token` (spec 4.3).
 */
export function iframeConfig(publicUrl: string) {
  return {
    version: 1,
    ui_mode: 'iframe',
    name: PLUGIN_NAME,
    description: 'This link is configured on the plugin’s own page. Use “Use the form instead” there to switch back.',
    embed_url: `${publicUrl}/embed?theme=light`,
  };
}
