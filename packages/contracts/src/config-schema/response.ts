import type { EmbedUrlCheck, IframeResponse } from './iframe';
import { iframeResponseSchema } from './iframe';
import { formatPath, toFieldErrors } from './issues';
import type { FieldError } from './limits';
import { configSchemaResponse, crossFieldIssues, type ConfigStructure } from './schema';

export type ParsedConfigResponse =
  | { ui_mode: 'schema'; structure: ConfigStructure; values: Record<string, unknown> }
  | { ui_mode: 'iframe'; iframe: IframeResponse };

export type ParseResult = { ok: true; value: ParsedConfigResponse } | { ok: false; errors: FieldError[] };

/**
 * Validates a GET /config answer. The mode is read from `ui_mode` (absent means `schema`, spec 2.6), and
 * the answer is split into the cacheable structure and the always-fresh `values` (spec 4.2 rule 2).
 */
export function parseConfigResponse(body: unknown, check: EmbedUrlCheck = {}): ParseResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { ok: false, errors: [{ field: '(root)', message: 'must be a JSON object' }] };
  if ((body as { ui_mode?: unknown }).ui_mode === 'iframe') {
    const r = iframeResponseSchema(check).safeParse(body);
    return r.success
      ? { ok: true, value: { ui_mode: 'iframe', iframe: r.data } }
      : { ok: false, errors: toFieldErrors(r.error) };
  }
  const r = configSchemaResponse.safeParse(body);
  if (!r.success) return { ok: false, errors: withCrossFieldErrors(toFieldErrors(r.error), body) };
  const { values, ...structure } = r.data;
  return { ok: true, value: { ui_mode: 'schema', structure, values: values ?? {} } };
}

/**
 * zod ran no cross-field rule on an answer with a per-field error (an object's refinements wait for its
 * members), so they are run here on the raw answer: every problem is named in the first answer, and the
 * count a plugin author reads first is the whole count. Capped like toFieldErrors.
 */
function withCrossFieldErrors(errors: FieldError[], body: unknown, max = 50): FieldError[] {
  // One problem per path: a condition field zod already refused (too long, say) is not named twice.
  const seen = new Set(errors.map((e) => e.field));
  const more = crossFieldIssues(body)
    .map((i) => ({ field: formatPath(i.path), message: i.message }))
    .filter((e) => !seen.has(e.field));
  return [...errors, ...more].slice(0, max);
}
