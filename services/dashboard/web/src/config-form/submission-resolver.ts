import { validateSubmission, type ConfigStructure, type FieldError } from '@rolelink/contracts';
import type { FieldErrors, Resolver } from 'react-hook-form';
import { allFields, splitErrors, submissionInput, type FormValues } from './form-model';

/** Prefix of the `root` errors under which the resolver reports problems that name no field of the form. */
const OTHER = 'field:';

/**
 * react-hook-form's resolver over the shared rules: `validateSubmission` from @rolelink/contracts, the
 * same function the server runs, so the form has no rule set of its own. A valid form resolves to the
 * submission itself (only visible, non-display fields with a value). Problems that name no field of the
 * form (an unknown key, say) are kept under `root`, as `root["field:<name>"]`, for the banner.
 */
export function submissionResolver(structure: ConfigStructure): Resolver<FormValues, unknown, Record<string, unknown>> {
  const keys = new Set(allFields(structure).map((f) => f.key));
  return (values) => {
    const result = validateSubmission(structure, submissionInput(values));
    if (result.ok) return { values: result.config, errors: {} };
    const { byField, other } = splitErrors(result.errors, keys);
    const errors: FieldErrors<FormValues> = {};
    for (const [key, message] of Object.entries(byField)) errors[key] = { type: 'validate', message };
    if (other.length)
      errors.root = Object.fromEntries(
        other.map((e) => [`${OTHER}${e.field}`, { type: 'validate', message: e.message }]),
      );
    return { values: {}, errors };
  };
}

/** The problems that name no field of the form, back as the FieldError list the banner shows. */
export function otherErrors(errors: FieldErrors<FormValues>): FieldError[] {
  const out: FieldError[] = [];
  for (const [key, value] of Object.entries(errors.root ?? {})) {
    if (key.startsWith(OTHER) && typeof value === 'object' && value !== null && 'message' in value)
      out.push({ field: key.slice(OTHER.length), message: String(value.message) });
  }
  return out;
}

/** A field's message, if it has one (field keys are plain words: `^[a-zA-Z0-9_]+$`, so never a nested path). */
export function messageOf(errors: FieldErrors<FormValues>, key: string): string | undefined {
  const message = errors[key]?.message;
  return typeof message === 'string' ? message : undefined;
}
