import { z } from 'zod';
import { fieldSchema, type Field } from './fields';
import { formatPath } from './issues';
import { CONFIG_LIMITS as L } from './limits';

export const sectionSchema = z.object({
  title: z.string(),
  description: z.string().optional(),
  collapsible: z.boolean().optional(),
  default_collapsed: z.boolean().optional(),
  fields: z
    .array(fieldSchema)
    .min(L.fieldsPerSectionMin, `must have at least ${L.fieldsPerSectionMin} field`)
    .max(L.fieldsPerSectionMax, `must have at most ${L.fieldsPerSectionMax} fields`),
});
export type Section = z.infer<typeof sectionSchema>;

type Located = { field: Field; path: (string | number)[] };

/** Every field with its path, in form order. */
export function fieldsOf(sections: readonly Section[]): Located[] {
  return sections.flatMap((s, si) => s.fields.map((field, fi) => ({ field, path: ['sections', si, 'fields', fi] })));
}

type Issue = { path: (string | number)[]; message: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * Rules that span fields (spec 2.6, 2.7, 2.9): unique keys, conditions and pairs naming existing fields,
 * values keys. They read the answer loosely (any JSON) so they can run on an answer that also breaks
 * per-field rules: zod skips an object's refinements once a member failed, and a plugin author fixing
 * the reported problems then met a second batch (`rolelink plugin check`). parseConfigResponse
 * reports both at once; a field whose key is not a string names nothing.
 */
export function crossFieldIssues(schema: unknown): Issue[] {
  const issues: Issue[] = [];
  if (!isObject(schema)) return issues;
  const all = arrayOf(schema.sections).flatMap((section, si) =>
    isObject(section)
      ? arrayOf(section.fields).flatMap((field, fi) =>
          isObject(field) ? [{ field, path: ['sections', si, 'fields', fi] as (string | number)[] }] : [],
        )
      : [],
  );
  const firstPath = new Map<string, (string | number)[]>();
  for (const { field, path } of all) {
    if (typeof field.key !== 'string') continue;
    const seen = firstPath.get(field.key);
    if (seen)
      issues.push({
        path: [...path, 'key'],
        message: `duplicate key "${field.key}" (already used at ${formatPath(seen)})`,
      });
    else firstPath.set(field.key, path);
  }
  for (const { field, path } of all) {
    const conditions = [
      ...(field.condition !== undefined ? [{ c: field.condition, at: [...path, 'condition'] }] : []),
      ...arrayOf(field.conditions).map((c, i) => ({ c, at: [...path, 'conditions', i] })),
    ];
    for (const { c, at } of conditions) {
      if (!isObject(c) || typeof c.field !== 'string') continue;
      if (c.field === field.key) issues.push({ path: [...at, 'field'], message: 'a field cannot depend on itself' });
      else if (!firstPath.has(c.field))
        issues.push({ path: [...at, 'field'], message: `names no field of this schema ("${c.field}")` });
    }
    if (typeof field.pair_with === 'string') {
      if (field.pair_with === field.key)
        issues.push({ path: [...path, 'pair_with'], message: 'a field cannot pair with itself' });
      else if (!firstPath.has(field.pair_with))
        issues.push({ path: [...path, 'pair_with'], message: `names no field of this schema ("${field.pair_with}")` });
    }
  }
  for (const key of Object.keys(isObject(schema.values) ? schema.values : {})) {
    if (!firstPath.has(key)) issues.push({ path: ['values', key], message: 'is not a field key of this schema' });
  }
  return issues;
}

function crossFieldRules(
  schema: { sections: Section[]; values?: Record<string, unknown> | undefined },
  ctx: z.RefinementCtx,
): void {
  for (const issue of crossFieldIssues(schema)) ctx.addIssue({ code: 'custom', ...issue });
}

/** The form structure (spec 2.6) without `values`: what is cached and what submissions are checked against. */
export const configStructureSchema = z
  .object({
    version: z.literal(1, 'must be 1'),
    ui_mode: z.literal('schema', 'must be "schema" or "iframe"').optional(),
    name: z.string().min(1, 'is required').max(L.nameMax),
    description: z.string().max(L.descriptionMax).optional(),
    sections: z
      .array(sectionSchema)
      .min(L.sectionsMin, `must have at least ${L.sectionsMin} section`)
      .max(L.sectionsMax, `must have at most ${L.sectionsMax} sections`),
  })
  .superRefine(crossFieldRules);
export type ConfigStructure = z.infer<typeof configStructureSchema>;

/** A whole schema-mode GET /config answer: the structure plus fresh `values`. */
export const configSchemaResponse = z
  .object({
    ...configStructureSchema.shape,
    values: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine(crossFieldRules);
export type ConfigSchemaResponse = z.infer<typeof configSchemaResponse>;
