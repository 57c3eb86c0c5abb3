import { z } from 'zod';
import { conditionSchema } from './conditions';
import { COLOR_PATTERN, CONFIG_LIMITS as L, FIELD_KEY_PATTERN, URL_VALUE_PATTERN } from './limits';

/** Field schemas of spec 2.7 and 2.8; cross-field rules (unique keys, references) live in schema.ts. */

export function compilePattern(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern);
  } catch {
    return null;
  }
}

export function isUrlValue(value: string): boolean {
  if (!URL_VALUE_PATTERN.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** True when `value` lies on the grid min, min+step, … (within floating-point noise). */
export function isOnStep(value: number, min: number, step: number): boolean {
  const n = (value - min) / step;
  return Math.abs(n - Math.round(n)) <= 1e-9 * Math.max(1, Math.abs(n));
}

const fieldKey = z.string().max(L.keyMax).regex(FIELD_KEY_PATTERN, 'must match ^[a-zA-Z0-9_]+$');

const common = {
  key: fieldKey,
  label: z.string().max(L.labelMax),
  description: z.string().max(L.fieldDescriptionMax).optional(),
  condition: conditionSchema.optional(),
  conditions: z.array(conditionSchema).max(L.conditionsMax).optional(),
  pair_with: z.string().optional(),
};

const requiredOnly = z.object({ required: z.boolean().optional() });

/** `validation` of text, textarea, secret and url: lengths are string lengths. */
const textValidation = z
  .object({
    required: z.boolean().optional(),
    min: z.number().int().min(0).optional(),
    max: z.number().int().min(0).optional(),
    pattern: z
      .string()
      .max(L.patternMax)
      .refine((p) => compilePattern(p) !== null, 'must be a valid regular expression')
      .optional(),
    pattern_message: z.string().max(L.patternMessageMax).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.min !== undefined && v.max !== undefined && v.min > v.max)
      ctx.addIssue({ code: 'custom', path: ['max'], message: 'must not be less than min' });
  });
export type TextValidation = z.infer<typeof textValidation>;

/** A text-like default must itself be a value the field would accept (pattern and max length). */
function checkTextDefault(
  field: { default_value?: string | undefined; validation?: TextValidation | undefined },
  ctx: z.RefinementCtx,
): void {
  const value = field.default_value;
  const rules = field.validation;
  if (value === undefined || rules === undefined) return;
  if (rules.max !== undefined && value.length > rules.max)
    ctx.addIssue({
      code: 'custom',
      path: ['default_value'],
      message: `must be at most validation.max (${rules.max}) characters`,
    });
  const re = rules.pattern === undefined ? null : compilePattern(rules.pattern);
  if (re && value !== '' && !re.test(value))
    ctx.addIssue({ code: 'custom', path: ['default_value'], message: 'must match validation.pattern' });
}

function textLike<T extends 'text' | 'secret'>(type: T) {
  return z
    .object({
      ...common,
      type: z.literal(type),
      placeholder: z.string().max(L.placeholderMax).optional(),
      default_value: z.string().max(L.textDefaultMax).optional(),
      validation: textValidation.optional(),
    })
    .superRefine(checkTextDefault);
}

export const textField = textLike('text');
export const secretField = textLike('secret');

export const textareaField = z
  .object({
    ...common,
    type: z.literal('textarea'),
    placeholder: z.string().max(L.placeholderMax).optional(),
    rows: z.number().int().min(L.rowsMin).max(L.rowsMax).optional(),
    default_value: z.string().max(L.textareaDefaultMax).optional(),
    validation: textValidation.optional(),
  })
  .superRefine(checkTextDefault);

export const urlField = z
  .object({
    ...common,
    type: z.literal('url'),
    placeholder: z.string().max(L.placeholderMax).optional(),
    default_value: z.string().max(L.urlDefaultMax).optional(),
    validation: textValidation.optional(),
  })
  .superRefine((f, ctx) => {
    if (f.default_value !== undefined && f.default_value !== '' && !isUrlValue(f.default_value)) {
      ctx.addIssue({
        code: 'custom',
        path: ['default_value'],
        message: 'must be a URL starting with http:// or https://',
      });
    }
    checkTextDefault(f, ctx);
  });

export const numberField = z
  .object({
    ...common,
    type: z.literal('number'),
    step: z.number().positive().optional(),
    suffix: z.string().max(L.suffixMax).optional(),
    default_value: z.number().optional(),
    validation: z
      .object({ required: z.boolean().optional(), min: z.number().optional(), max: z.number().optional() })
      .superRefine((v, ctx) => {
        if (v.min !== undefined && v.max !== undefined && v.min > v.max)
          ctx.addIssue({ code: 'custom', path: ['max'], message: 'must not be less than min' });
      })
      .optional(),
  })
  .superRefine((f, ctx) => {
    const d = f.default_value;
    if (d === undefined || !f.validation) return;
    if (
      (f.validation.min !== undefined && d < f.validation.min) ||
      (f.validation.max !== undefined && d > f.validation.max)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['default_value'],
        message: 'must lie within validation.min and validation.max',
      });
    }
  });

export const optionValue = z.union([z.string().max(L.optionValueMax), z.number()]);
export const optionSchema = z.object({ label: z.string().max(L.optionLabelMax), value: optionValue });
export type Option = z.infer<typeof optionSchema>;

function hasOption(options: readonly Option[], value: unknown): boolean {
  return options.some((o) => o.value === value);
}

function choiceField<T extends 'select' | 'radio'>(type: T, maxOptions: number) {
  return z
    .object({
      ...common,
      type: z.literal(type),
      options: z
        .array(optionSchema)
        .min(1, 'must have at least 1 option')
        .max(maxOptions, `must have at most ${maxOptions} options`),
      default_value: optionValue.optional(),
      validation: requiredOnly.optional(),
    })
    .superRefine((f, ctx) => {
      if (f.default_value !== undefined && !hasOption(f.options, f.default_value)) {
        ctx.addIssue({ code: 'custom', path: ['default_value'], message: 'must match one of the option values' });
      }
    });
}

export const selectField = choiceField('select', L.selectOptionsMax);
export const radioField = choiceField('radio', L.radioOptionsMax);

export const checkboxField = z.object({
  ...common,
  type: z.literal('checkbox'),
  default_value: z.boolean().optional(),
});
export const toggleField = z.object({ ...common, type: z.literal('toggle'), default_value: z.boolean().optional() });

export const colorField = z.object({
  ...common,
  type: z.literal('color'),
  default_value: z.string().regex(COLOR_PATTERN, 'must be a colour like #1a2b3c').optional(),
  validation: requiredOnly.optional(),
});

export const sliderField = z
  .object({
    ...common,
    type: z.literal('slider'),
    min: z.number(),
    max: z.number(),
    step: z.number().positive().optional(),
    default_value: z.number().optional(),
    show_value: z.boolean().optional(),
    suffix: z.string().max(L.suffixMax).optional(),
  })
  .superRefine((f, ctx) => {
    if (!(f.max > f.min)) ctx.addIssue({ code: 'custom', path: ['max'], message: 'must be greater than min' });
    const d = f.default_value;
    if (d === undefined) return;
    if (d < f.min || d > f.max)
      ctx.addIssue({ code: 'custom', path: ['default_value'], message: 'must lie within min and max' });
    else if (!isOnStep(d, f.min, f.step ?? 1))
      ctx.addIssue({ code: 'custom', path: ['default_value'], message: 'must be min plus a whole number of steps' });
  });

export const multiSelectField = z
  .object({
    ...common,
    type: z.literal('multi_select'),
    options: z
      .array(optionSchema)
      .min(1, 'must have at least 1 option')
      .max(L.multiSelectOptionsMax, `must have at most ${L.multiSelectOptionsMax} options`),
    default_value: z.array(optionValue).optional(),
    max_selections: z.number().int().min(1).optional(),
    validation: requiredOnly.optional(),
  })
  .superRefine((f, ctx) => {
    const d = f.default_value;
    if (d === undefined) return;
    d.forEach((v, i) => {
      if (!hasOption(f.options, v))
        ctx.addIssue({ code: 'custom', path: ['default_value', i], message: 'must match one of the option values' });
    });
    if (f.max_selections !== undefined && d.length > f.max_selections)
      ctx.addIssue({
        code: 'custom',
        path: ['default_value'],
        message: `must select at most max_selections (${f.max_selections})`,
      });
  });

export const displayField = z.object({
  ...common,
  type: z.literal('display'),
  value: z.string().max(L.displayValueMax),
});

export const fieldSchema = z.discriminatedUnion('type', [
  textField,
  textareaField,
  numberField,
  selectField,
  radioField,
  checkboxField,
  toggleField,
  secretField,
  urlField,
  colorField,
  sliderField,
  multiSelectField,
  displayField,
]);
export type Field = z.infer<typeof fieldSchema>;
export type FieldOf<T extends Field['type']> = Extract<Field, { type: T }>;
