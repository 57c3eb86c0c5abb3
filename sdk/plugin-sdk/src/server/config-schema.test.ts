import { parseConfigResponse } from '@rolelink/contracts';
import { configForm, fields as f, iframeResponse, section, type ValuesOf } from './config-schema';

// Uses every builder, every option kind, conditions and a range pair.
const form = configForm({
  name: 'Every field',
  description: 'Built with the SDK',
  sections: [
    section('Basics', [
      f.display('about', 'About', '**Bold** and `code`'),
      f.text('nickname', 'Nickname', {
        placeholder: 'nick',
        default_value: 'abc',
        validation: { required: true, max: 20, pattern: '^[a-z]+$', pattern_message: 'lowercase' },
      }),
      f.textarea('bio', 'Bio', { rows: 4 }),
      f.number('min_level', 'From level', { step: 1, default_value: 5, validation: { min: 0, max: 100 } }),
      f.number('max_level', 'To level', { pair_with: 'min_level', validation: { min: 0, max: 100 } }),
      f.select('region', 'Region', {
        options: [
          { label: 'EU', value: 'eu' },
          { label: 'US', value: 'us' },
        ],
        default_value: 'eu',
      }),
      f.radio('tier', 'Tier', {
        options: [
          { label: 'One', value: 1 },
          { label: 'Two', value: 2 },
        ],
        default_value: 1,
      }),
      f.checkbox('verified_only', 'Verified only', { default_value: false }),
      f.toggle('advanced', 'Advanced'),
    ]),
    section(
      'More',
      [
        f.secret('api_key', 'API key', { condition: { field: 'advanced', equals: true } }),
        f.url('callback', 'Callback', {
          conditions: [
            { field: 'advanced', equals: true },
            { field: 'region', equals_any: ['eu', 'us'] },
          ],
        }),
        f.color('accent', 'Accent', { default_value: '#1a2b3c' }),
        f.slider('threshold', 'Threshold', { min: 0, max: 10, step: 0.5, default_value: 2.5 }),
        f.multiSelect('games', 'Games', {
          options: [
            { label: 'A', value: 'a' },
            { label: 'B', value: 'b' },
          ],
          default_value: ['a'],
          max_selections: 2,
        }),
      ],
      { collapsible: true, default_collapsed: true },
    ),
  ],
});

describe('the config-schema builder', () => {
  it("produces GET /config answers the service's own validator accepts", () => {
    const parsed = parseConfigResponse(form.response({ nickname: 'zed', games: ['b'], tier: 2 }));
    expect(parsed).toMatchObject({
      ok: true,
      value: { ui_mode: 'schema', values: { nickname: 'zed', games: ['b'], tier: 2 } },
    });
    expect(
      parseConfigResponse(iframeResponse({ name: 'Page', embedUrl: 'https://plugin.example.com/embed' })),
    ).toMatchObject({ ok: true, value: { ui_mode: 'iframe' } });
  });

  it('builds what the validator refuses when the author breaks a rule the types cannot express, naming the path', () => {
    const broken = configForm({
      name: 'Broken',
      sections: [
        section('S', [
          f.slider('s', 'S', { min: 5, max: 1 }),
          f.text('t', 'T', { condition: { field: 'nope', equals: 1 } }),
        ]),
      ],
    });
    const parsed = parseConfigResponse(broken.response());
    expect(parsed.ok).toBe(false);
    if (!parsed.ok)
      expect(parsed.errors.map((e) => e.field)).toEqual(
        expect.arrayContaining(['sections[0].fields[0].max', 'sections[0].fields[1].condition.field']),
      );
  });

  it('types the saved values from the fields (display fields have none)', () => {
    type Values = ValuesOf<typeof form>;
    const values: Values = { nickname: 'a', tier: 1, region: 'us', games: ['a', 'b'], advanced: true, threshold: 3 };
    // @ts-expect-error tier is 1 or 2
    const wrongTier: Values = { tier: 3 };
    // @ts-expect-error display fields are never submitted
    const display: Values = { about: 'x' };
    expect([values, wrongTier, display]).toHaveLength(3);
  });
});
