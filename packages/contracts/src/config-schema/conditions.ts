import { z } from 'zod';
import { CONFIG_LIMITS } from './limits';

export const conditionValue = z.union([z.string(), z.number(), z.boolean()]);
export type ConditionValue = z.infer<typeof conditionValue>;

/** Spec 2.9: `field` names another field; exactly one of `equals` and `equals_any`. */
export const conditionSchema = z
  .object({
    field: z.string().max(CONFIG_LIMITS.conditionFieldMax),
    equals: conditionValue.optional(),
    equals_any: z.array(conditionValue).min(1, 'must list at least one value').optional(),
  })
  .superRefine((c, ctx) => {
    const hasEquals = c.equals !== undefined;
    const hasAny = c.equals_any !== undefined;
    if (hasEquals && hasAny)
      ctx.addIssue({ code: 'custom', path: ['equals_any'], message: 'set either equals or equals_any, not both' });
    if (!hasEquals && !hasAny)
      ctx.addIssue({ code: 'custom', path: ['equals'], message: 'equals or equals_any is required' });
  });
export type Condition = z.infer<typeof conditionSchema>;

/** Does a field's current value satisfy one condition? Arrays (multi_select) match when any element does. */
export function conditionMatches(value: unknown, condition: Condition): boolean {
  const wanted: readonly ConditionValue[] =
    condition.equals !== undefined ? [condition.equals] : (condition.equals_any ?? []);
  if (Array.isArray(value)) return value.some((v) => wanted.includes(v as ConditionValue));
  return wanted.includes(value as ConditionValue);
}
