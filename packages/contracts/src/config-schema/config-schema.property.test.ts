import fc from 'fast-check';
import { COLOR_PATTERN } from './limits';
import { parseConfigResponse } from './response';
import type { ConfigStructure } from './schema';
import type { Field } from './fields';
import { validateSubmission } from './submission';

const keys = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
const optionValues = fc.array(fc.oneof(fc.constantFrom('x', 'y', 'z'), fc.integer({ min: 0, max: 3 })), {
  minLength: 1,
  maxLength: 4,
});
const options = optionValues.map((vs) => vs.map((value) => ({ label: String(value), value })));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const condition = fc.record({
  field: keys,
  equals: fc.oneof(fc.boolean(), fc.constantFrom('x', 'y'), fc.integer({ min: 0, max: 3 })),
});
const textValidation = fc.record(
  {
    required: fc.boolean(),
    min: fc.integer({ min: 0, max: 5 }),
    max: fc.integer({ min: 0, max: 12 }),
    pattern: fc.constantFrom('^[a-z]*$', '\\d', 'x'),
    pattern_message: fc.constant('bad'),
  },
  { requiredKeys: [] },
);

/** Field-shaped objects: mostly plausible, sometimes invalid, so both branches of validation run. */
const fieldArb = fc.record({
  key: keys,
  label: fc.string({ maxLength: 5 }),
  type: fc.constantFrom(
    'text',
    'textarea',
    'number',
    'select',
    'radio',
    'checkbox',
    'toggle',
    'secret',
    'url',
    'color',
    'slider',
    'multi_select',
    'display',
    'bogus',
  ),
  options: maybe(options),
  validation: maybe(textValidation),
  min: fc.integer({ min: -5, max: 5 }),
  max: fc.integer({ min: -5, max: 10 }),
  step: maybe(fc.constantFrom(0.5, 1, 2, 0, -1)),
  max_selections: maybe(fc.integer({ min: 0, max: 3 })),
  default_value: maybe(
    fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.integer({ min: -5, max: 10 }),
      fc.boolean(),
      fc.constant('#00ff00'),
      fc.constant(['x']),
    ),
  ),
  value: fc.string({ maxLength: 10 }),
  condition: maybe(condition),
  pair_with: maybe(keys),
});
const schemaArb = fc.record({
  version: fc.constantFrom(1, 1, 1, 2),
  name: fc.string({ minLength: 0, maxLength: 8 }),
  sections: fc.array(
    fc.record({ title: fc.string({ maxLength: 5 }), fields: fc.array(fieldArb, { minLength: 0, maxLength: 6 }) }),
    { minLength: 0, maxLength: 3 },
  ),
});

/** Fields built per type with plausible properties, so that most generated schemas are valid. */
const common = { label: fc.string({ maxLength: 5 }), condition: maybe(condition) };
const typedField = fc.oneof(
  fc.record({
    ...common,
    type: fc.constantFrom('text', 'secret', 'textarea', 'url'),
    validation: maybe(textValidation),
  }),
  fc.record({
    ...common,
    type: fc.constant('number'),
    validation: maybe(
      fc.record(
        { required: fc.boolean(), min: fc.integer({ min: -5, max: 0 }), max: fc.integer({ min: 1, max: 10 }) },
        { requiredKeys: [] },
      ),
    ),
  }),
  fc.record({
    ...common,
    type: fc.constantFrom('select', 'radio'),
    options,
    validation: maybe(fc.record({ required: fc.boolean() })),
  }),
  fc.record({ ...common, type: fc.constantFrom('checkbox', 'toggle'), default_value: maybe(fc.boolean()) }),
  fc.record({ ...common, type: fc.constant('color'), default_value: maybe(fc.constant('#00ff00')) }),
  fc.record({
    ...common,
    type: fc.constant('slider'),
    min: fc.integer({ min: -5, max: 0 }),
    max: fc.integer({ min: 1, max: 10 }),
    step: maybe(fc.constantFrom(0.5, 1, 2)),
  }),
  fc.record({
    ...common,
    type: fc.constant('multi_select'),
    options,
    max_selections: maybe(fc.integer({ min: 1, max: 3 })),
    validation: maybe(fc.record({ required: fc.boolean() })),
  }),
  fc.record({ ...common, type: fc.constant('display'), value: fc.string({ maxLength: 10 }) }),
);
const validishSchemaArb = fc
  .uniqueArray(fc.tuple(keys, typedField), { minLength: 1, maxLength: 8, selector: ([k]) => k })
  .map((entries) => ({
    version: 1,
    name: 'p',
    sections: [{ title: 's', fields: entries.map(([key, f]) => ({ ...f, key })) }],
  }));
const submittedValue = fc.oneof(
  fc.string({ maxLength: 14 }),
  fc.constantFrom('', 'x', 'y', 'z', 'abc', '#12ab9F', 'https://a.example', 'http://', '12'),
  fc.integer({ min: -6, max: 12 }),
  fc.double({ min: -6, max: 12, noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.constantFrom('x', 'y', 'z'), fc.integer({ min: 0, max: 3 })), { maxLength: 4 }),
);
const submission = fc.dictionary(
  fc.oneof({ weight: 19, arbitrary: keys }, { weight: 1, arbitrary: fc.constant('zz') }),
  submittedValue,
  { maxKeys: 4 },
);

/** An independent statement of what a sent value may be (spec 2.8), kept deliberately simple. */
function acceptable(field: Field, value: unknown): boolean {
  switch (field.type) {
    case 'text':
    case 'secret':
    case 'textarea':
    case 'url': {
      if (typeof value !== 'string') return false;
      if (value === '') return field.validation?.required !== true;
      const v = field.validation;
      if (v?.min !== undefined && value.length < v.min) return false;
      if (v?.max !== undefined && value.length > v.max) return false;
      if (v?.pattern !== undefined && !new RegExp(v.pattern).test(value)) return false;
      return field.type !== 'url' || /^https?:\/\/./.test(value);
    }
    case 'number':
      return (
        typeof value === 'number' &&
        Number.isFinite(value) &&
        !(field.validation?.min !== undefined && value < field.validation.min) &&
        !(field.validation?.max !== undefined && value > field.validation.max)
      );
    case 'slider': {
      if (typeof value !== 'number' || value < field.min || value > field.max) return false;
      const n = (value - field.min) / (field.step ?? 1);
      return Math.abs(n - Math.round(n)) < 1e-6;
    }
    case 'select':
    case 'radio':
      return field.options.some((o) => o.value === value);
    case 'multi_select':
      return (
        Array.isArray(value) &&
        value.every((v) => field.options.some((o) => o.value === v)) &&
        new Set(value).size === value.length &&
        (field.max_selections === undefined || value.length <= field.max_selections) &&
        (field.validation?.required !== true || value.length > 0)
      );
    case 'checkbox':
    case 'toggle':
      return typeof value === 'boolean';
    case 'color':
      return typeof value === 'string' && COLOR_PATTERN.test(value);
    case 'display':
      return false;
  }
}

describe('config schema property tests', () => {
  it('never throws on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => void parseConfigResponse(body)),
      { numRuns: 500 },
    );
  });

  it('never throws on schema-shaped input, and every rejection names a path', () => {
    fc.assert(
      fc.property(schemaArb, (body) => {
        const r = parseConfigResponse(body);
        if (!r.ok) for (const e of r.errors) expect(e.field.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('never accepts an invalid value, and never crashes, for random schemas and submissions', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(validishSchemaArb, schemaArb), submission, (body, config) => {
        const parsed = parseConfigResponse(body);
        if (!parsed.ok || parsed.value.ui_mode !== 'schema') return;
        const structure: ConfigStructure = parsed.value.structure;
        const fields = new Map(structure.sections.flatMap((s) => s.fields).map((f) => [f.key, f]));
        const r = validateSubmission(structure, config);
        if (!r.ok) {
          for (const e of r.errors) expect(e.field in config || fields.has(e.field)).toBe(true);
          return;
        }
        accepted++;
        for (const key of Object.keys(config)) expect(fields.has(key)).toBe(true);
        for (const [key, value] of Object.entries(r.config)) {
          const field = fields.get(key);
          expect(field).toBeDefined();
          expect(acceptable(field!, value)).toBe(true);
          expect(value).toEqual(config[key]);
        }
      }),
      { numRuns: 4000 },
    );
    expect(accepted).toBeGreaterThan(30);
  });
});
