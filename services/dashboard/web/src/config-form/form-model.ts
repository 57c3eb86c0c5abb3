import type { ConfigStructure, Field, FieldError, Section } from '@rolelink/contracts';

/**
 * The form's state rules, React-free so jest can test them. Validation and visibility are NOT here:
 * they come from @rolelink/contracts (`validateSubmission`, `visibleKeys`), the same code the server runs.
 */

/** Form state: a value per field key; a key that is absent was never set (not pre-filled, no default). */
export type FormValues = Record<string, unknown>;

export function allFields(structure: ConfigStructure): Field[] {
  return structure.sections.flatMap((s) => s.fields);
}

/** `values` from the plugin pre-fill the form; fields it leaves unset start at their `default_value`. */
export function initialValues(structure: ConfigStructure, values: Record<string, unknown>): FormValues {
  const out: FormValues = {};
  for (const field of allFields(structure)) {
    if (field.type === 'display' || Object.prototype.hasOwnProperty.call(out, field.key)) continue;
    const given = Object.prototype.hasOwnProperty.call(values, field.key) ? values[field.key] : undefined;
    if (given !== undefined && given !== null) out[field.key] = given;
    else if (field.default_value !== undefined)
      out[field.key] = Array.isArray(field.default_value) ? [...field.default_value] : field.default_value;
  }
  return out;
}

/** What validateSubmission gets: only the keys that hold a value (an untouched, unset field is not sent). */
export function submissionInput(values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value;
  return out;
}

/** The first message per field; errors naming no field of the form are returned apart, for the banner. */
export function splitErrors(
  errors: readonly FieldError[],
  keys: ReadonlySet<string>,
): { byField: Record<string, string>; other: FieldError[] } {
  const byField: Record<string, string> = {};
  const other: FieldError[] = [];
  for (const e of errors) {
    if (!keys.has(e.field)) other.push(e);
    else if (byField[e.field] === undefined) byField[e.field] = e.message;
  }
  return { byField, other };
}

/** Field types whose control fits on one line, so they can sit inline as `<start> to <end>`. */
const INLINE_TYPES = new Set<Field['type']>(['text', 'secret', 'url', 'number', 'select', 'color', 'slider']);

/**
 * Range pairs to render inline (spec 2.9): start key → end field, for each end field whose `pair_with`
 * start exists and both are visible. A field takes part in at most one pair; a start that is itself an
 * end, or types that do not fit on a line, render on their own.
 */
export function rangePairs(structure: ConfigStructure, visible: ReadonlySet<string>): Map<string, Field> {
  const byKey = new Map<string, Field>();
  for (const f of allFields(structure)) if (!byKey.has(f.key)) byKey.set(f.key, f);
  const pairs = new Map<string, Field>();
  const used = new Set<string>();
  for (const end of byKey.values()) {
    const startKey = end.pair_with;
    if (startKey === undefined || startKey === end.key) continue;
    const start = byKey.get(startKey);
    if (!start || !visible.has(start.key) || !visible.has(end.key)) continue;
    if (!INLINE_TYPES.has(start.type) || !INLINE_TYPES.has(end.type)) continue;
    if (used.has(start.key) || used.has(end.key)) continue;
    pairs.set(start.key, end);
    used.add(start.key);
    used.add(end.key);
  }
  return pairs;
}

export type LayoutItem = { kind: 'field'; field: Field } | { kind: 'pair'; start: Field; end: Field };

/** A section's visible fields in order, with each pair's end moved next to its start. */
export function sectionLayout(
  section: Section,
  visible: ReadonlySet<string>,
  pairs: ReadonlyMap<string, Field>,
): LayoutItem[] {
  const ends = new Set([...pairs.values()].map((f) => f.key));
  const items: LayoutItem[] = [];
  for (const field of section.fields) {
    if (!visible.has(field.key) || ends.has(field.key)) continue;
    const end = pairs.get(field.key);
    items.push(end ? { kind: 'pair', start: field, end } : { kind: 'field', field });
  }
  return items;
}

/** True when two form states hold the same values (arrays compared element-wise). */
export function sameValues(a: FormValues, b: FormValues): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const x = a[key];
    const y = b[key];
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
    } else if (!Object.is(x, y)) return false;
  }
  return true;
}
