import { FIELD_TYPES, parseConfigResponse, validateSubmission, visibleKeys } from '@rolelink/contracts';
import { configSchema, iframeConfig } from './config-form';
import { demoConfig, describeConfigError } from './demo-config';

type AnyField = {
  type: string;
  key: string;
  condition?: { field: string };
  conditions?: { equals?: unknown; equals_any?: unknown[] }[];
  pair_with?: string;
};

/** The structure as the service holds it, or a failing test naming the service's objections. */
function parsedForm(values: Record<string, unknown> = { member_count: 5 }) {
  const parsed = parseConfigResponse(configSchema(values));
  if (!parsed.ok) throw new Error(`the service refuses the form: ${JSON.stringify(parsed.errors)}`);
  if (parsed.value.ui_mode !== 'schema') throw new Error('expected a schema-mode answer');
  return parsed.value;
}

describe('the example plugin configuration form', () => {
  it('passes the service’s own validator and uses all 13 field types, a condition, AND conditions and a range pair', () => {
    const { structure } = parsedForm();
    const fields = structure.sections.flatMap((s) => s.fields) as AnyField[];
    expect(new Set(fields.map((f) => f.type))).toEqual(new Set(FIELD_TYPES));
    expect(fields.some((f) => f.condition)).toBe(true);
    const anded = fields.filter((f) => (f.conditions?.length ?? 0) > 1);
    expect(
      anded.some(
        (f) =>
          f.conditions!.some((c) => c.equals !== undefined) && f.conditions!.some((c) => c.equals_any !== undefined),
      ),
    ).toBe(true);
    expect(fields.find((f) => f.pair_with)).toMatchObject({
      key: 'sync_end_hour',
      type: 'number',
      pair_with: 'sync_start_hour',
    });
    expect(structure.sections.some((s) => s.collapsible && !s.default_collapsed)).toBe(true);
    expect(structure.sections.some((s) => s.collapsible && s.default_collapsed)).toBe(true);
  });

  it('sends back the saved values of its own fields only, so a stale key never invalidates the form', () => {
    const { values } = parsedForm({ member_count: 9, label: 'x', ui_mode: 'schema', retired_setting: true });
    expect(values).toEqual({ member_count: 9, label: 'x', ui_mode: 'schema' });
  });

  it('shows the webhook fields only while Notify is on and the level slider only for that source', () => {
    const { structure } = parsedForm();
    const off = visibleKeys(structure, { notify: false });
    expect(['webhook_url', 'webhook_secret', 'min_level', 'teams', 'manual_ids'].filter((k) => off.has(k))).toEqual([]);
    const on = visibleKeys(structure, { notify: true, source: 'level', include_inactive: false });
    expect(
      ['webhook_url', 'webhook_secret', 'min_level', 'inactive_after_days', 'exclude_bots'].every((k) => on.has(k)),
    ).toBe(true);
    expect(visibleKeys(structure, { source: 'manual' }).has('inactive_after_days')).toBe(false);
  });

  it('accepts on the plugin side whatever the service’s submission check lets through', () => {
    const { structure } = parsedForm();
    const submitted = {
      member_count: 40,
      label: 'Raiders',
      source: 'level',
      min_level: 25,
      exclude_bots: true,
      include_inactive: false,
      inactive_after_days: 14,
      sync_start_hour: 6,
      sync_end_hour: 22,
      sync_interval_minutes: 15,
      timezone: 'Europe/Berlin',
      notify: true,
      webhook_url: 'https://hooks.example.com/roles',
      webhook_secret: 's'.repeat(16),
      embed_color: '#00ff88',
      external_group_id: 'raid-team',
      notes: 'Keep in sync with the raid roster.',
      ui_mode: 'schema',
    };
    const checked = validateSubmission(structure, submitted);
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    expect(demoConfig.parse(checked.config)).toEqual(submitted);
  });

  it('explains a sync window that ends before it starts in one sentence', () => {
    const r = demoConfig.safeParse({ member_count: 1, sync_start_hour: 18, sync_end_hour: 9 });
    expect(r.success).toBe(false);
    expect(describeConfigError(r.error!)).toBe('The sync window must end after it starts (start 18, end 9)');
  });

  it('answers an iframe response the service accepts, whose embed URL keeps a query parameter', () => {
    const parsed = parseConfigResponse(iframeConfig('https://plugin.example.com'));
    expect(parsed).toEqual({
      ok: true,
      value: {
        ui_mode: 'iframe',
        iframe: expect.objectContaining({ embed_url: 'https://plugin.example.com/embed?theme=light' }),
      },
    });
  });
});
