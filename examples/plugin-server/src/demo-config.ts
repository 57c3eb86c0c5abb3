import { z } from 'zod';

/**
 * The plugin's settings as POST /config submits them (spec 2.10) and as they are saved. The service has
 * already checked the submission against the form, but a plugin must not rely on that: it checks again
 * here, and adds the rule the form schema cannot express (the sync window's end after its start).
 *
 * Every key is optional except `member_count`: the service sends only visible, non-display fields, so
 * e.g. the webhook keys are absent while "Notify" is off. Unknown keys are dropped, so the saved config
 * (sent back as the form's `values`) only ever holds field keys.
 */

export const SOURCES = ['all', 'level', 'teams', 'manual'] as const;
export const TEAMS = ['red', 'blue', 'green', 'yellow'] as const;
export const TIMEZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'] as const;
export const UI_MODES = ['schema', 'iframe'] as const;
export type UiMode = (typeof UI_MODES)[number];

export const MEMBER_COUNT_MAX = 10_000;
export const LABEL_MAX = 100;

const hour = z.number().int().min(0).max(23);
const memberCountMessage = `must be a whole number from 0 to ${MEMBER_COUNT_MAX}`;
/** '' is how the dashboard clears an optional text field. */
const optionalText = (max: number) => z.string().max(max);

export const demoConfig = z
  .object({
    member_count: z.coerce
      .number(memberCountMessage)
      .int(memberCountMessage)
      .min(0, memberCountMessage)
      .max(MEMBER_COUNT_MAX, memberCountMessage),
    label: optionalText(LABEL_MAX).optional(),
    source: z.enum(SOURCES).optional(),
    min_level: z.number().min(0).max(100).optional(),
    teams: z.array(z.enum(TEAMS)).max(2).optional(),
    manual_ids: optionalText(5_000).optional(),
    exclude_bots: z.boolean().optional(),
    include_inactive: z.boolean().optional(),
    inactive_after_days: z.number().int().min(1).max(365).optional(),
    sync_start_hour: hour.optional(),
    sync_end_hour: hour.optional(),
    sync_interval_minutes: z.number().int().min(5).max(120).optional(),
    timezone: z.enum(TIMEZONES).optional(),
    notify: z.boolean().optional(),
    webhook_url: z
      .string()
      .max(2_000)
      .refine((v) => v === '' || v.startsWith('https://'), 'must be an https:// URL')
      .optional(),
    webhook_secret: optionalText(200).optional(),
    embed_color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/)
      .optional(),
    external_group_id: optionalText(64).optional(),
    notes: optionalText(1_000).optional(),
    ui_mode: z.enum(UI_MODES).optional(),
  })
  .superRefine((c, ctx) => {
    // A range pair is validated field by field (spec 2.9); the relation between the two is ours to check.
    if (c.sync_start_hour !== undefined && c.sync_end_hour !== undefined && c.sync_end_hour <= c.sync_start_hour) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `The sync window must end after it starts (start ${c.sync_start_hour}, end ${c.sync_end_hour})`,
      });
    }
  });
export type DemoConfig = z.infer<typeof demoConfig>;

/** One line for the `error` field of a 400, which the dashboard shows the admin (spec 4.2 rule 5). */
export function describeConfigError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid config';
  // Cross-field rules carry a whole sentence and no path; field issues are prefixed with their key.
  return issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/** The saved mode of a link: absent means the form (spec 2.6's default). */
export function uiModeOf(config: Record<string, unknown>): UiMode {
  return config.ui_mode === 'iframe' ? 'iframe' : 'schema';
}
