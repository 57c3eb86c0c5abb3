import { z } from 'zod';

/** The plugin's settings, as submitted by the service's POST /config (spec 2.10). */
export const demoConfig = z.object({
  member_count: z.coerce.number().int().min(0).max(10_000),
  label: z.string().max(100).optional(),
});
export type DemoConfig = z.infer<typeof demoConfig>;

/** GET /config: a schema-mode form (spec 2.6) with the saved values. */
export function configSchema(values: Partial<DemoConfig>) {
  return {
    version: 1,
    ui_mode: 'schema',
    name: 'Demo member list',
    description: 'Grants the role to the first N members of the demo guild.',
    sections: [
      {
        title: 'Members',
        fields: [
          {
            type: 'number',
            key: 'member_count',
            label: 'How many demo members hold the role',
            default_value: 20,
            validation: { required: true, min: 0, max: 10000 },
          },
          { type: 'text', key: 'label', label: 'A label for this link', placeholder: 'Demo', validation: { max: 100 } },
          { type: 'display', key: 'about', label: 'About', value: 'This is the **example plugin server** of the Role Link Service.' },
        ],
      },
    ],
    values,
  };
}
