import type { z } from 'zod';
import type { FieldError } from './limits';

/** `sections[0].fields[2].key`: the path form every rejection names. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(root)';
}

export function toFieldErrors(error: z.ZodError, max = 50): FieldError[] {
  return error.issues.slice(0, max).map((i) => ({ field: formatPath(i.path), message: i.message }));
}
