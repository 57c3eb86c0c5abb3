import { z } from 'zod';
import { fieldSchema, type Field } from './fields';
import { formatPath } from './issues';
import { CONFIG_LIMITS as L } from './limits';

export const sectionSchema = z.object({
  title: z.string(),
  description: z.string().optional(),
  collapsible: z.boolean().optional(),
  default_collapsed: z.boolean().optional(),
  fields: z.array(fieldSchema).min(L.fieldsPerSectionMin, `must have at least ${L.fieldsPerSectionMin} field`).max(L.fieldsPerSectionMax, `must have at most ${L.fieldsPerSectionMax} fields`),
});
export type Section = z.infer<typeof sectionSchema>;

type Located = { field: Field; path: (string | number)[] };

/** Every field with its path, in form order. */
export function fieldsOf(sections: readonly Section[]): Located[] {
  return sections.flatMap((s, si) => s.fields.map((field, fi) => ({ field, path: ['sections', si, 'fields', fi] })));
}

/** Rules that span fields (spec 2.6, 2.7, 2.9): unique keys, conditions and pairs naming existing fields, values keys. */
function crossFieldRules(schema: { sections: Section[]; values?: Record<string, unknown> | undefined }, ctx: z.RefinementCtx): void {
  const all = fieldsOf(schema.sections);
  const firstPath = new Map<string, (string | number)[]>();
  for (const { field, path } of all) {
    const seen = firstPath.get(field.key);
    if (seen) ctx.addIssue({ code: 'custom', path: [...path, 'key'], message: `duplicate key "${field.key}" (already used at ${formatPath(seen)})` });
    else firstPath.set(field.key, path);
  }
  for (const { field, path } of all) {
    const conditions = [...(field.condition ? [{ c: field.condition, at: [...path, 'condition'] }] : []), ...(field.conditions ?? []).map((c, i) => ({ c, at: [...path, 'conditions', i] }))];
    for (const { c, at } of conditions) {
      if (c.field === field.key) ctx.addIssue({ code: 'custom', path: [...at, 'field'], message: 'a field cannot depend on itself' });
      else if (!firstPath.has(c.field)) ctx.addIssue({ code: 'custom', path: [...at, 'field'], message: `names no field of this schema ("${c.field}")` });
    }
    if (field.pair_with !== undefined) {
      if (field.pair_with === field.key) ctx.addIssue({ code: 'custom', path: [...path, 'pair_with'], message: 'a field cannot pair with itself' });
      else if (!firstPath.has(field.pair_with)) ctx.addIssue({ code: 'custom', path: [...path, 'pair_with'], message: `names no field of this schema ("${field.pair_with}")` });
    }
  }
  for (const key of Object.keys(schema.values ?? {})) {
    if (!firstPath.has(key)) ctx.addIssue({ code: 'custom', path: ['values', key], message: 'is not a field key of this schema' });
  }
}

/** The form structure (spec 2.6) without `values`: what is cached and what submissions are checked against. */
export const configStructureSchema = z
  .object({
    version: z.literal(1, 'must be 1'),
    ui_mode: z.literal('schema', 'must be "schema" or "iframe"').optional(),
    name: z.string().min(1, 'is required').max(L.nameMax),
    description: z.string().max(L.descriptionMax).optional(),
    sections: z.array(sectionSchema).min(L.sectionsMin, `must have at least ${L.sectionsMin} section`).max(L.sectionsMax, `must have at most ${L.sectionsMax} sections`),
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
