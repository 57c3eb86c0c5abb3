import { configStructureSchema, validateSubmission, visibleKeys, type ConfigStructure } from '@rolelink/contracts';
import { initialValues, rangePairs, sameValues, sectionLayout, splitErrors, submissionInput } from './form-model';

function structure(): ConfigStructure {
  return configStructureSchema.parse({
    version: 1,
    name: 'Test plugin',
    sections: [
      {
        title: 'Main',
        fields: [
          { type: 'text', key: 'nickname', label: 'Nickname', default_value: 'abc', validation: { required: true } },
          { type: 'number', key: 'min_level', label: 'Minimum level', default_value: 5 },
          { type: 'number', key: 'max_level', label: 'Maximum level', pair_with: 'min_level' },
          { type: 'toggle', key: 'advanced', label: 'Advanced', default_value: false },
          {
            type: 'secret',
            key: 'api_key',
            label: 'API key',
            condition: { field: 'advanced', equals: true },
            validation: { required: true },
          },
          {
            type: 'multi_select',
            key: 'games',
            label: 'Games',
            options: [
              { label: 'A', value: 'a' },
              { label: 'B', value: 'b' },
            ],
            default_value: ['a'],
          },
          { type: 'display', key: 'notice', label: 'Notice', value: 'Read me' },
        ],
      },
      {
        title: 'Other',
        fields: [
          { type: 'text', key: 'from', label: 'From' },
          { type: 'radio', key: 'to', label: 'To', pair_with: 'from', options: [{ label: 'X', value: 'x' }] },
        ],
      },
    ],
  });
}

describe('initialValues', () => {
  it('pre-fills from values and falls back to defaults for unset fields', () => {
    const values = initialValues(structure(), { nickname: 'zed', max_level: 9, min_level: null });
    expect(values).toEqual({ nickname: 'zed', min_level: 5, max_level: 9, advanced: false, games: ['a'] });
  });

  it('never holds display fields and copies array defaults', () => {
    const s = structure();
    const values = initialValues(s, {});
    expect(values).not.toHaveProperty('notice');
    (values.games as string[]).push('b');
    expect(initialValues(s, {}).games).toEqual(['a']);
  });
});

describe('submissionInput with validateSubmission', () => {
  it('drops unset keys so hidden and untouched fields are not sent', () => {
    const s = structure();
    const values = { ...initialValues(s, {}), api_key: undefined };
    const result = validateSubmission(s, submissionInput(values));
    expect(result).toEqual({ ok: true, config: { nickname: 'abc', min_level: 5, advanced: false, games: ['a'] } });
  });

  it('lets the shared rules report a newly visible required field', () => {
    const s = structure();
    const result = validateSubmission(s, submissionInput({ ...initialValues(s, {}), advanced: true }));
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(splitErrors(result.errors, new Set(['api_key'])).byField).toEqual({ api_key: 'API key is required' });
  });
});

describe('splitErrors', () => {
  it('keeps the first message per field and sets aside errors for unknown fields', () => {
    const { byField, other } = splitErrors(
      [
        { field: 'a', message: 'first' },
        { field: 'a', message: 'second' },
        { field: 'config', message: 'config must be a JSON object' },
      ],
      new Set(['a']),
    );
    expect(byField).toEqual({ a: 'first' });
    expect(other).toEqual([{ field: 'config', message: 'config must be a JSON object' }]);
  });
});

describe('rangePairs and sectionLayout', () => {
  it('renders a visible pair inline at the start field and skips the end field', () => {
    const s = structure();
    const visible = visibleKeys(s, initialValues(s, {}));
    const pairs = rangePairs(s, visible);
    expect([...pairs.keys()]).toEqual(['min_level']);
    const layout = sectionLayout(s.sections[0]!, visible, pairs);
    expect(layout.map((i) => (i.kind === 'pair' ? `${i.start.key}..${i.end.key}` : i.field.key))).toEqual([
      'nickname',
      'min_level..max_level',
      'advanced',
      'games',
      'notice',
    ]);
  });

  it('renders fields apart when one side is hidden', () => {
    const s = structure();
    const pairs = rangePairs(s, new Set(['max_level', 'nickname']));
    expect(pairs.size).toBe(0);
    expect(sectionLayout(s.sections[0]!, new Set(['max_level']), pairs).map((i) => i.kind)).toEqual(['field']);
  });

  it('does not inline types that do not fit on one line', () => {
    const s = structure();
    expect(rangePairs(s, new Set(['from', 'to'])).size).toBe(0);
  });
});

describe('sameValues', () => {
  it('compares arrays by element', () => {
    expect(sameValues({ a: ['x'], b: 1 }, { a: ['x'], b: 1 })).toBe(true);
    expect(sameValues({ a: ['x'] }, { a: ['y'] })).toBe(false);
    expect(sameValues({ a: 1 }, {})).toBe(false);
  });
});
