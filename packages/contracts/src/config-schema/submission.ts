import type { Field, FieldOf, Option } from './fields';
import { compilePattern, isOnStep, isUrlValue } from './fields';
import { COLOR_PATTERN, CONFIG_LIMITS as L, type FieldError } from './limits';
import type { ConfigStructure } from './schema';
import { visibleKeys } from './visibility';

export type SubmissionResult = { ok: true; config: Record<string, unknown> } | { ok: false; errors: FieldError[] };

type TextLike = FieldOf<'text' | 'secret' | 'textarea' | 'url'>;

/** '' clears a text-like field and [] a multi_select; other types have no empty value of their own. */
function isEmptyFor(field: Field, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (value === '')
    return field.type === 'text' || field.type === 'secret' || field.type === 'textarea' || field.type === 'url';
  return Array.isArray(value) && value.length === 0 && field.type === 'multi_select';
}

function isRequired(field: Field): boolean {
  return 'validation' in field && field.validation?.required === true;
}

function label(field: Field): string {
  return field.label || field.key;
}

function optionLabels(options: readonly Option[]): string {
  const shown = options.slice(0, 10).map((o) => JSON.stringify(o.value));
  return shown.join(', ') + (options.length > 10 ? ', …' : '');
}

function checkText(field: TextLike, value: unknown): string | null {
  if (typeof value !== 'string') return `${label(field)} must be a string`;
  if (value === '') return null; // an optional field left empty; required-ness is checked before
  if (value.length > L.submittedStringMax) return `${label(field)} must be at most ${L.submittedStringMax} characters`;
  const v = field.validation;
  if (v?.min !== undefined && value.length < v.min) return `${label(field)} must be at least ${v.min} characters`;
  if (v?.max !== undefined && value.length > v.max) return `${label(field)} must be at most ${v.max} characters`;
  if (field.type === 'url' && !isUrlValue(value))
    return `${label(field)} must be a URL starting with http:// or https://`;
  const re = v?.pattern === undefined ? null : compilePattern(v.pattern);
  if (re && !re.test(value)) return v?.pattern_message || `${label(field)} has an invalid format`;
  return null;
}

function checkNumber(field: FieldOf<'number' | 'slider'>, value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return `${label(field)} must be a number`;
  const min = field.type === 'slider' ? field.min : field.validation?.min;
  const max = field.type === 'slider' ? field.max : field.validation?.max;
  if (min !== undefined && value < min) return `${label(field)} must be at least ${min}`;
  if (max !== undefined && value > max) return `${label(field)} must be at most ${max}`;
  if (field.type === 'slider' && !isOnStep(value, field.min, field.step ?? 1))
    return `${label(field)} must be ${field.min} plus a multiple of ${field.step ?? 1}`;
  return null;
}

function checkChoice(field: FieldOf<'select' | 'radio'>, value: unknown): string | null {
  if (!field.options.some((o) => o.value === value))
    return `${label(field)} must be one of ${optionLabels(field.options)}`;
  return null;
}

function checkMulti(field: FieldOf<'multi_select'>, value: unknown): string | null {
  if (!Array.isArray(value)) return `${label(field)} must be an array of option values`;
  for (const v of value)
    if (!field.options.some((o) => o.value === v))
      return `${label(field)}: ${JSON.stringify(v)} is not one of ${optionLabels(field.options)}`;
  if (new Set(value).size !== value.length) return `${label(field)} must not list a value twice`;
  if (field.max_selections !== undefined && value.length > field.max_selections)
    return `${label(field)} allows at most ${field.max_selections} selections`;
  return null;
}

function checkValue(field: Exclude<Field, FieldOf<'display'>>, value: unknown): string | null {
  switch (field.type) {
    case 'text':
    case 'secret':
    case 'textarea':
    case 'url':
      return checkText(field, value);
    case 'number':
    case 'slider':
      return checkNumber(field, value);
    case 'select':
    case 'radio':
      return checkChoice(field, value);
    case 'multi_select':
      return checkMulti(field, value);
    case 'checkbox':
    case 'toggle':
      return typeof value === 'boolean' ? null : `${label(field)} must be true or false`;
    case 'color':
      return typeof value === 'string' && COLOR_PATTERN.test(value)
        ? null
        : `${label(field)} must be a colour like #1a2b3c`;
  }
}

/**
 * Checks a submitted config against the form structure before POST /config (spec 4.2 rule 3) and
 * returns what may be sent: keys of visible, non-display fields with a value (spec 2.10). Hidden fields
 * are neither required nor sent, display fields are never sent, unknown keys are refused.
 */
export function validateSubmission(structure: ConfigStructure, input: unknown): SubmissionResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { ok: false, errors: [{ field: 'config', message: 'config must be a JSON object' }] };
  const values = input as Record<string, unknown>;
  const fields = new Map<string, Field>();
  for (const s of structure.sections) for (const f of s.fields) if (!fields.has(f.key)) fields.set(f.key, f);

  const errors: FieldError[] = [];
  for (const key of Object.keys(values))
    if (!fields.has(key)) errors.push({ field: key, message: `${key} is not a field of this form` });

  const visible = visibleKeys(structure, values);
  const config: Record<string, unknown> = {};
  for (const [key, field] of fields) {
    if (field.type === 'display' || !visible.has(key)) continue;
    const value = Object.prototype.hasOwnProperty.call(values, key) ? values[key] : undefined;
    if (isEmptyFor(field, value)) {
      if (isRequired(field)) errors.push({ field: key, message: `${label(field)} is required` });
      else if (value !== undefined && value !== null) config[key] = value; // '' or [] clears an optional field
      continue;
    }
    const problem = checkValue(field, value);
    if (problem) errors.push({ field: key, message: problem });
    else config[key] = value;
  }
  return errors.length ? { ok: false, errors } : { ok: true, config };
}
