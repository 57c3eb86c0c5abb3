import { json, startTestPlugin, type TestPlugin } from '../../services/plugin-broker/test/support/test-plugin';

/** Markup a hostile plugin puts in every string the dashboard shows: it must appear as text, never run. */
export const HOSTILE = {
  script: '<script>window.__pwned = "script"</script>',
  img: '<img src=x onerror="window.__pwned = \'img\'">',
  link: '[click me](javascript:window.__pwned=1)',
} as const;

/** A valid schema whose every plugin-provided string carries markup. */
export function hostileSchema() {
  return {
    version: 1,
    name: `Hostile ${HOSTILE.script}`,
    description: `Description ${HOSTILE.img}`,
    sections: [
      {
        title: `Section ${HOSTILE.script}`,
        description: HOSTILE.img,
        fields: [
          {
            type: 'text',
            key: 'name',
            label: `Label ${HOSTILE.script}`,
            description: `Help ${HOSTILE.img}`,
            placeholder: HOSTILE.img,
          },
          {
            type: 'select',
            key: 'pick',
            label: 'Pick',
            options: [
              { label: HOSTILE.script, value: 'a' },
              { label: 'b', value: 'b' },
            ],
          },
          {
            type: 'display',
            key: 'about',
            label: 'About',
            value: `**${HOSTILE.script}** ${HOSTILE.link} ${HOSTILE.img}`,
          },
        ],
      },
    ],
    values: { name: HOSTILE.script },
  };
}

/** An HTTPS plugin that registers anyone and serves the hostile schema. */
export async function startHostilePlugin(): Promise<TestPlugin> {
  const plugin = await startTestPlugin();
  plugin.on('POST /register', (_req, res) => json(res, 200, { ok: true }));
  plugin.on('GET /config', (_req, res) => json(res, 200, hostileSchema()));
  plugin.on('POST /config', (_req, res) => json(res, 422, { error: `Refused ${HOSTILE.script}` }));
  plugin.on('GET /health', (_req, res) =>
    json(res, 200, { status: 'degraded', checks: { [HOSTILE.script]: { status: 'down', message: HOSTILE.img } } }),
  );
  return plugin;
}
