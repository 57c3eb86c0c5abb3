import { CONFIG_LIMITS as L } from './limits';
import { parseConfigResponse } from './response';
import { sampleSchema, type RawObject, type RawSchema } from './fixtures';

type Schema = RawSchema;
/** A field with the nested objects the tests reach into (the sample has each where a test uses it). */
type Field = RawObject & { validation: RawObject; condition: RawObject; options: RawObject[]; conditions: RawObject[] };
const section = (s: Schema, index: number) => s.sections[index]!;
const f = (s: Schema, index: number, field: number): Field => section(s, index).fields[field]! as Field;

/** Parses and returns the paths of the errors (each rejection must name the offending property). */
function errorPaths(s: unknown): string[] {
  const r = parseConfigResponse(s);
  return r.ok ? [] : r.errors.map((e) => e.field);
}

function mutated(change: (s: Schema) => void): Schema {
  const s = sampleSchema();
  change(s);
  return s;
}

function fields(n: number, prefix = 'f'): RawObject[] {
  return Array.from({ length: n }, (_, i) => ({ type: 'checkbox', key: `${prefix}${i}`, label: `F${i}` }));
}

describe('configuration schema validation (spec 2.6 to 2.9)', () => {
  it('accepts a schema using all 13 field types and splits off values', () => {
    const r = parseConfigResponse(sampleSchema());
    expect(r.ok).toBe(true);
    if (r.ok && r.value.ui_mode === 'schema') {
      expect(r.value.values).toEqual({ nickname: 'zed', games: ['b'] });
      expect(r.value.structure).not.toHaveProperty('values');
      expect(new Set(r.value.structure.sections.flatMap((s) => s.fields.map((x) => x.type))).size).toBe(13);
    }
  });

  it('accepts the minimal schema: version, name and one section with one field', () => {
    expect(
      errorPaths({
        version: 1,
        name: 'n',
        sections: [{ title: 't', fields: [{ type: 'toggle', key: 'k', label: 'K' }] }],
      }),
    ).toEqual([]);
  });

  it('refuses a body that is not an object', () => {
    expect(errorPaths([1, 2])).toEqual(['(root)']);
    expect(errorPaths('x')).toEqual(['(root)']);
  });

  const rejections: [string, (s: Schema) => void, string][] = [
    ['version other than 1', (s) => (s.version = 2), 'version'],
    ['missing version', (s) => delete s.version, 'version'],
    ['unknown ui_mode', (s) => (s.ui_mode = 'html'), 'ui_mode'],
    ['missing name', (s) => delete s.name, 'name'],
    ['name over 100 characters', (s) => (s.name = 'n'.repeat(L.nameMax + 1)), 'name'],
    ['description over 500 characters', (s) => (s.description = 'd'.repeat(L.descriptionMax + 1)), 'description'],
    ['no sections', (s) => (s.sections = []), 'sections'],
    [
      'more than 10 sections',
      (s) => (s.sections = Array.from({ length: 11 }, (_, i) => ({ title: 't', fields: fields(1, `s${i}_`) }))),
      'sections',
    ],
    ['a section without fields', (s) => (section(s, 0).fields = []), 'sections[0].fields'],
    ['a section with 31 fields', (s) => (section(s, 0).fields = fields(31)), 'sections[0].fields'],
    ['a section whose title is missing', (s) => delete section(s, 1).title, 'sections[1].title'],
    ['collapsible that is not a boolean', (s) => (section(s, 0).collapsible = 'yes'), 'sections[0].collapsible'],
    ['duplicate keys across sections', (s) => (f(s, 1, 0).key = 'nickname'), 'sections[1].fields[0].key'],
    ['a key with a forbidden character', (s) => (f(s, 0, 0).key = 'nick-name'), 'sections[0].fields[0].key'],
    ['a key over 100 characters', (s) => (f(s, 0, 0).key = 'k'.repeat(L.keyMax + 1)), 'sections[0].fields[0].key'],
    ['an empty key', (s) => (f(s, 0, 0).key = ''), 'sections[0].fields[0].key'],
    ['an unknown field type', (s) => (f(s, 0, 0).type = 'date'), 'sections[0].fields[0].type'],
    ['a missing label', (s) => delete f(s, 0, 0).label, 'sections[0].fields[0].label'],
    [
      'a label over 200 characters',
      (s) => (f(s, 0, 0).label = 'l'.repeat(L.labelMax + 1)),
      'sections[0].fields[0].label',
    ],
    [
      'a field description over 500 characters',
      (s) => (f(s, 0, 0).description = 'd'.repeat(501)),
      'sections[0].fields[0].description',
    ],
    [
      'text placeholder over 200 characters',
      (s) => (f(s, 0, 0).placeholder = 'p'.repeat(201)),
      'sections[0].fields[0].placeholder',
    ],
    [
      'text default over 1,000 characters',
      (s) => {
        f(s, 0, 0).default_value = 'a'.repeat(1001);
        delete (f(s, 0, 0) as RawObject).validation;
      },
      'sections[0].fields[0].default_value',
    ],
    [
      'text default not matching the pattern',
      (s) => (f(s, 0, 0).default_value = 'ABC'),
      'sections[0].fields[0].default_value',
    ],
    [
      'text default longer than validation.max',
      (s) => (f(s, 0, 0).default_value = 'a'.repeat(21)),
      'sections[0].fields[0].default_value',
    ],
    [
      'an invalid regular expression',
      (s) => (f(s, 0, 0).validation.pattern = '(['),
      'sections[0].fields[0].validation.pattern',
    ],
    [
      'pattern_message over 200 characters',
      (s) => (f(s, 0, 0).validation.pattern_message = 'm'.repeat(201)),
      'sections[0].fields[0].validation.pattern_message',
    ],
    [
      'validation.min above validation.max',
      (s) => (f(s, 0, 0).validation.min = 30),
      'sections[0].fields[0].validation.max',
    ],
    ['a negative length bound', (s) => (f(s, 0, 0).validation.min = -1), 'sections[0].fields[0].validation.min'],
    [
      'required that is not a boolean',
      (s) => (f(s, 0, 0).validation.required = 'yes'),
      'sections[0].fields[0].validation.required',
    ],
    ['textarea rows below 2', (s) => (f(s, 0, 1).rows = 1), 'sections[0].fields[1].rows'],
    ['textarea rows above 20', (s) => (f(s, 0, 1).rows = 21), 'sections[0].fields[1].rows'],
    [
      'textarea default over 5,000 characters',
      (s) => (f(s, 0, 1).default_value = 'a'.repeat(5001)),
      'sections[0].fields[1].default_value',
    ],
    ['number default that is a string', (s) => (f(s, 0, 2).default_value = '5'), 'sections[0].fields[2].default_value'],
    [
      'number default outside its bounds',
      (s) => (f(s, 0, 2).default_value = 101),
      'sections[0].fields[2].default_value',
    ],
    ['number suffix over 20 characters', (s) => (f(s, 0, 2).suffix = 's'.repeat(21)), 'sections[0].fields[2].suffix'],
    ['number step of zero', (s) => (f(s, 0, 2).step = 0), 'sections[0].fields[2].step'],
    ['select without options', (s) => (f(s, 0, 4).options = []), 'sections[0].fields[4].options'],
    [
      'select with 101 options',
      (s) => (f(s, 0, 4).options = Array.from({ length: 101 }, (_, i) => ({ label: `o${i}`, value: i }))),
      'sections[0].fields[4].options',
    ],
    [
      'select default not among the options',
      (s) => (f(s, 0, 4).default_value = 'asia'),
      'sections[0].fields[4].default_value',
    ],
    [
      'option label over 100 characters',
      (s) => (f(s, 0, 4).options[0]!.label = 'l'.repeat(101)),
      'sections[0].fields[4].options[0].label',
    ],
    [
      'option value over 500 characters',
      (s) => (f(s, 0, 4).options[0]!.value = 'v'.repeat(501)),
      'sections[0].fields[4].options[0].value',
    ],
    [
      'option value that is a boolean',
      (s) => (f(s, 0, 4).options[0]!.value = true),
      'sections[0].fields[4].options[0].value',
    ],
    [
      'radio with 51 options',
      (s) => (f(s, 0, 5).options = Array.from({ length: 51 }, (_, i) => ({ label: `o${i}`, value: i }))),
      'sections[0].fields[5].options',
    ],
    [
      'radio default not among the options',
      (s) => (f(s, 0, 5).default_value = 3),
      'sections[0].fields[5].default_value',
    ],
    ['radio default of the wrong type', (s) => (f(s, 0, 5).default_value = '1'), 'sections[0].fields[5].default_value'],
    [
      'checkbox default that is not a boolean',
      (s) => (f(s, 0, 6).default_value = 'false'),
      'sections[0].fields[6].default_value',
    ],
    [
      'toggle default that is not a boolean',
      (s) => (f(s, 0, 7).default_value = 0),
      'sections[0].fields[7].default_value',
    ],
    [
      'secret default over 1,000 characters',
      (s) => (f(s, 1, 0).default_value = 'a'.repeat(1001)),
      'sections[1].fields[0].default_value',
    ],
    [
      'url default that is not a URL',
      (s) => (f(s, 1, 1).default_value = 'ftp://x'),
      'sections[1].fields[1].default_value',
    ],
    [
      'url default over 2,000 characters',
      (s) => (f(s, 1, 1).default_value = 'https://x/' + 'a'.repeat(2000)),
      'sections[1].fields[1].default_value',
    ],
    [
      'color default that is not #rrggbb',
      (s) => (f(s, 1, 2).default_value = '#abc'),
      'sections[1].fields[2].default_value',
    ],
    ['slider without min', (s) => delete f(s, 1, 3).min, 'sections[1].fields[3].min'],
    ['slider without max', (s) => delete f(s, 1, 3).max, 'sections[1].fields[3].max'],
    [
      'slider max not greater than min',
      (s) => {
        f(s, 1, 3).max = 0;
        delete f(s, 1, 3).default_value;
      },
      'sections[1].fields[3].max',
    ],
    [
      'slider default outside min and max',
      (s) => (f(s, 1, 3).default_value = 11),
      'sections[1].fields[3].default_value',
    ],
    [
      'slider default off the step grid',
      (s) => (f(s, 1, 3).default_value = 2.2),
      'sections[1].fields[3].default_value',
    ],
    ['slider negative step', (s) => (f(s, 1, 3).step = -1), 'sections[1].fields[3].step'],
    ['show_value that is not a boolean', (s) => (f(s, 1, 3).show_value = 1), 'sections[1].fields[3].show_value'],
    ['multi_select without options', (s) => (f(s, 1, 4).options = []), 'sections[1].fields[4].options'],
    [
      'multi_select default naming an unknown option',
      (s) => (f(s, 1, 4).default_value = ['a', 'z']),
      'sections[1].fields[4].default_value[1]',
    ],
    [
      'multi_select default that is not an array',
      (s) => (f(s, 1, 4).default_value = 'a'),
      'sections[1].fields[4].default_value',
    ],
    [
      'multi_select default above max_selections',
      (s) => (f(s, 1, 4).default_value = ['a', 'b', 'c']),
      'sections[1].fields[4].default_value',
    ],
    ['max_selections of zero', (s) => (f(s, 1, 4).max_selections = 0), 'sections[1].fields[4].max_selections'],
    [
      'display value over 2,000 characters',
      (s) => (f(s, 1, 5).value = 'v'.repeat(2001)),
      'sections[1].fields[5].value',
    ],
    ['display without value', (s) => delete f(s, 1, 5).value, 'sections[1].fields[5].value'],
    [
      'a condition naming no field',
      (s) => (f(s, 1, 0).condition.field = 'ghost'),
      'sections[1].fields[0].condition.field',
    ],
    [
      'a condition on the field itself',
      (s) => (f(s, 1, 0).condition.field = 'api_key'),
      'sections[1].fields[0].condition.field',
    ],
    [
      'a condition field over 100 characters',
      (s) => (f(s, 1, 0).condition.field = 'x'.repeat(101)),
      'sections[1].fields[0].condition.field',
    ],
    [
      'a condition with both equals and equals_any',
      (s) => (f(s, 1, 0).condition.equals_any = [true]),
      'sections[1].fields[0].condition.equals_any',
    ],
    [
      'a condition with neither equals nor equals_any',
      (s) => (f(s, 1, 0).condition = { field: 'advanced' }),
      'sections[1].fields[0].condition.equals',
    ],
    [
      'a condition comparing with an object',
      (s) => (f(s, 1, 0).condition.equals = { a: 1 }),
      'sections[1].fields[0].condition.equals',
    ],
    [
      'an empty equals_any',
      (s) => (f(s, 1, 1).conditions[1]!.equals_any = []),
      'sections[1].fields[1].conditions[1].equals_any',
    ],
    [
      'more than 5 conditions',
      (s) => (f(s, 1, 1).conditions = Array.from({ length: 6 }, () => ({ field: 'advanced', equals: true }))),
      'sections[1].fields[1].conditions',
    ],
    [
      'a condition in the list naming no field',
      (s) => (f(s, 1, 1).conditions[0]!.field = 'ghost'),
      'sections[1].fields[1].conditions[0].field',
    ],
    ['pair_with naming no field', (s) => (f(s, 0, 3).pair_with = 'ghost'), 'sections[0].fields[3].pair_with'],
    [
      'pair_with naming the field itself',
      (s) => (f(s, 0, 3).pair_with = 'max_level'),
      'sections[0].fields[3].pair_with',
    ],
    ['values with a key that is no field', (s) => (s.values.ghost = 1), 'values.ghost'],
    ['values that is not an object', (s) => ((s as RawObject).values = [1]), 'values'],
  ];

  it.each(rejections)('rejects %s and names the path', (_name, change, path) => {
    expect(errorPaths(mutated(change))).toContain(path);
  });

  it('names a condition on a missing field in the same answer as a per-field error, so the first count is whole', () => {
    const s = mutated((m) => {
      f(m, 0, 0).label = 5; // a per-field error: zod then runs no cross-field rule
      f(m, 1, 0).condition.field = 'ghost';
      f(m, 0, 3).pair_with = 'ghost';
      m.values.ghost = 1;
    });
    const r = parseConfigResponse(s);
    const errors = r.ok ? [] : r.errors;
    expect(errors[0]?.field).toBe('sections[0].fields[0].label');
    expect(errors.slice(1)).toEqual([
      { field: 'sections[0].fields[3].pair_with', message: 'names no field of this schema ("ghost")' },
      { field: 'sections[1].fields[0].condition.field', message: 'names no field of this schema ("ghost")' },
      { field: 'values.ghost', message: 'is not a field key of this schema' },
    ]);
  });
});

describe('iframe-mode response validation (spec 2.11)', () => {
  const iframe = (over: RawObject = {}): RawObject => ({
    version: 1,
    ui_mode: 'iframe',
    name: 'Plugin',
    embed_url: 'https://plugin.example.com/embed?a=1',
    ...over,
  });
  const isForbiddenHost = (u: URL) => u.hostname === 'localhost' || u.hostname.endsWith('.internal');

  it('accepts a valid iframe response', () => {
    const r = parseConfigResponse(iframe({ description: 'd' }), { isForbiddenHost });
    expect(r.ok && r.value.ui_mode === 'iframe' && r.value.iframe.embed_url).toBe(
      'https://plugin.example.com/embed?a=1',
    );
  });

  const rejections: [string, RawObject, string][] = [
    ['an http embed_url', iframe({ embed_url: 'http://plugin.example.com/' }), 'embed_url'],
    [
      'an embed_url over 2,000 characters',
      iframe({ embed_url: 'https://plugin.example.com/' + 'a'.repeat(2000) }),
      'embed_url',
    ],
    ['an embed_url that is no URL', iframe({ embed_url: 'not a url' }), 'embed_url'],
    ['an embed_url on a private host', iframe({ embed_url: 'https://db.internal/embed' }), 'embed_url'],
    ['an embed_url with credentials', iframe({ embed_url: 'https://u:p@plugin.example.com/' }), 'embed_url'],
    ['a missing embed_url', iframe({ embed_url: undefined }), 'embed_url'],
    ['a version other than 1', iframe({ version: 2 }), 'version'],
    ['a missing name', iframe({ name: undefined }), 'name'],
  ];

  it.each(rejections)('rejects %s', (_name, body, path) => {
    const r = parseConfigResponse(body, { isForbiddenHost });
    expect(r.ok ? [] : r.errors.map((e) => e.field)).toContain(path);
  });
});
