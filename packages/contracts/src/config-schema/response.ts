import type { EmbedUrlCheck, IframeResponse } from './iframe';
import { iframeResponseSchema } from './iframe';
import { toFieldErrors } from './issues';
import type { FieldError } from './limits';
import { configSchemaResponse, type ConfigStructure } from './schema';

export type ParsedConfigResponse = { ui_mode: 'schema'; structure: ConfigStructure; values: Record<string, unknown> } | { ui_mode: 'iframe'; iframe: IframeResponse };

export type ParseResult = { ok: true; value: ParsedConfigResponse } | { ok: false; errors: FieldError[] };

/**
 * Validates a GET /config answer. The mode is read from `ui_mode` (absent means `schema`, spec 2.6), and
 * the answer is split into the cacheable structure and the always-fresh `values` (spec 4.2 rule 2).
 */
export function parseConfigResponse(body: unknown, check: EmbedUrlCheck = {}): ParseResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, errors: [{ field: '(root)', message: 'must be a JSON object' }] };
  if ((body as { ui_mode?: unknown }).ui_mode === 'iframe') {
    const r = iframeResponseSchema(check).safeParse(body);
    return r.success ? { ok: true, value: { ui_mode: 'iframe', iframe: r.data } } : { ok: false, errors: toFieldErrors(r.error) };
  }
  const r = configSchemaResponse.safeParse(body);
  if (!r.success) return { ok: false, errors: toFieldErrors(r.error) };
  const { values, ...structure } = r.data;
  return { ok: true, value: { ui_mode: 'schema', structure, values: values ?? {} } };
}
