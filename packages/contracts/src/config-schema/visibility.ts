import { conditionMatches, type Condition } from './conditions';
import type { Field } from './fields';
import type { ConfigStructure } from './schema';

function conditionsOf(field: Field): Condition[] {
  return [...(field.condition ? [field.condition] : []), ...(field.conditions ?? [])];
}

/** What a field holds for condition purposes: the submitted value, else its default (display fields hold none). */
function effectiveValue(field: Field, values: Record<string, unknown>): unknown {
  if (Object.prototype.hasOwnProperty.call(values, field.key) && values[field.key] !== null) return values[field.key];
  return field.type === 'display' ? undefined : field.default_value;
}

/**
 * Keys of the fields visible for these values (spec 2.7, 2.9: all conditions must match). A condition on
 * a hidden field fails, so hiding cascades; a cycle of conditions hides every field on it.
 */
export function visibleKeys(structure: ConfigStructure, values: Record<string, unknown>): Set<string> {
  const byKey = new Map<string, Field>();
  for (const s of structure.sections) for (const f of s.fields) if (!byKey.has(f.key)) byKey.set(f.key, f);
  const memo = new Map<string, boolean>();
  const visiting = new Set<string>();

  const isVisible = (key: string): boolean => {
    const known = memo.get(key);
    if (known !== undefined) return known;
    const field = byKey.get(key);
    if (!field || visiting.has(key)) return false;
    visiting.add(key);
    const result = conditionsOf(field).every((c) => {
      const target = byKey.get(c.field);
      return target !== undefined && isVisible(c.field) && conditionMatches(effectiveValue(target, values), c);
    });
    visiting.delete(key);
    memo.set(key, result);
    return result;
  };

  return new Set([...byKey.keys()].filter(isVisible));
}
