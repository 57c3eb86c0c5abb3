/** JSON as a plugin sends it: tests may set any property to anything, or delete it. */
export type RawObject = Record<string, unknown>;
export type RawSchema = RawObject & { sections: (RawObject & { fields: RawObject[] })[]; values: RawObject };

/** A valid schema using every field type: the base that tests mutate one rule at a time. */
export function sampleSchema(): RawSchema {
  return {
    version: 1,
    name: 'Sample plugin',
    description: 'All field types',
    sections: [
      {
        title: 'Basics',
        collapsible: true,
        default_collapsed: false,
        fields: [
          {
            type: 'text',
            key: 'nickname',
            label: 'Nickname',
            placeholder: 'nick',
            default_value: 'abc',
            validation: {
              required: true,
              min: 2,
              max: 20,
              pattern: '^[a-z]+$',
              pattern_message: 'lowercase letters only',
            },
          },
          { type: 'textarea', key: 'bio', label: 'Bio', rows: 4, default_value: '' },
          {
            type: 'number',
            key: 'min_level',
            label: 'Minimum level',
            step: 1,
            suffix: 'lvl',
            default_value: 5,
            validation: { min: 0, max: 100 },
          },
          {
            type: 'number',
            key: 'max_level',
            label: 'Maximum level',
            pair_with: 'min_level',
            validation: { min: 0, max: 100 },
          },
          {
            type: 'select',
            key: 'region',
            label: 'Region',
            options: [
              { label: 'EU', value: 'eu' },
              { label: 'US', value: 'us' },
            ],
            default_value: 'eu',
            validation: { required: true },
          },
          {
            type: 'radio',
            key: 'tier',
            label: 'Tier',
            options: [
              { label: 'One', value: 1 },
              { label: 'Two', value: 2 },
            ],
            default_value: 1,
          },
          { type: 'checkbox', key: 'verified_only', label: 'Verified only', default_value: false },
          { type: 'toggle', key: 'advanced', label: 'Advanced', default_value: false },
        ],
      },
      {
        title: 'Advanced',
        fields: [
          {
            type: 'secret',
            key: 'api_key',
            label: 'API key',
            condition: { field: 'advanced', equals: true },
            validation: { required: true },
          },
          {
            type: 'url',
            key: 'callback',
            label: 'Callback',
            default_value: 'https://example.com/cb',
            conditions: [
              { field: 'advanced', equals: true },
              { field: 'region', equals_any: ['eu', 'us'] },
            ],
          },
          { type: 'color', key: 'accent', label: 'Accent', default_value: '#1a2B3c' },
          {
            type: 'slider',
            key: 'threshold',
            label: 'Threshold',
            min: 0,
            max: 10,
            step: 0.5,
            default_value: 2.5,
            show_value: true,
            suffix: '%',
          },
          {
            type: 'multi_select',
            key: 'games',
            label: 'Games',
            options: [
              { label: 'A', value: 'a' },
              { label: 'B', value: 'b' },
              { label: 'C', value: 'c' },
            ],
            default_value: ['a'],
            max_selections: 2,
            validation: { required: true },
          },
          { type: 'display', key: 'notice', label: 'Notice', value: '**Bold** and `code`\nsecond line' },
        ],
      },
    ],
    values: { nickname: 'zed', games: ['b'] },
  };
}
