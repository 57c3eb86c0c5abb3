import type { Field, FieldOf } from '@rolelink/contracts';

/**
 * What every field component receives. `describedBy` already joins the description, error and any
 * other hint ids; `ariaLabel` is set instead of a visible label when the field is the end of a range pair.
 */
export type FieldProps<F extends Field = Field> = {
  field: F;
  id: string;
  value: unknown;
  error: string | undefined;
  onChange: (value: unknown) => void;
  onBlur: () => void;
  describedBy: string | undefined;
  ariaLabel?: string | undefined;
};

export type ControlProps<T extends Field['type']> = FieldProps<FieldOf<T>>;

export function fieldIds(id: string) {
  return { description: `${id}-desc`, error: `${id}-error`, hint: `${id}-hint` };
}

export function joinIds(...ids: (string | false | null | undefined)[]): string | undefined {
  const list = ids.filter((x): x is string => typeof x === 'string' && x !== '');
  return list.length ? list.join(' ') : undefined;
}

export function isRequired(field: Field): boolean {
  return 'validation' in field && field.validation?.required === true;
}

/**
 * The ARIA every bare control carries: invalid while it has an error, described by `describedBy` plus any
 * `extra` ids of its own (a unit suffix, a shown value), required, and the range end's accessible name.
 */
export function controlAria(
  { field, error, describedBy, ariaLabel }: Pick<FieldProps, 'field' | 'error' | 'describedBy' | 'ariaLabel'>,
  ...extra: (string | false | undefined)[]
) {
  return {
    'aria-invalid': error ? true : undefined,
    'aria-describedby': joinIds(describedBy, ...extra),
    'aria-required': isRequired(field) || undefined,
    'aria-label': ariaLabel,
  } as const;
}
