/**
 * PLATFORM_API_URL's one form: the platform's REST base without a version (`https://discord.com/api`); the
 * product speaks version 10 of that API and appends `/v10` itself. `…/api/v10`, as Discord's docs print
 * it, means the same and is read as the base; any other version is refused, since the product's requests
 * and the answers it checks are version 10's.
 */
export const PLATFORM_API_VERSION = '10';

export function platformApiBase(value: string): { base: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: `is not a URL (expected the platform's REST base, e.g. https://discord.com/api)` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: `must be an http or https URL (e.g. https://discord.com/api), not ${url.protocol}` };
  if (url.search || url.hash)
    return { problem: 'must be the REST base alone, without a query or fragment (e.g. https://discord.com/api)' };
  const trimmed = value.replace(/\/+$/, '');
  const version = /\/v(\d+)$/.exec(trimmed);
  if (!version) return { base: trimmed };
  if (version[1] === PLATFORM_API_VERSION) return { base: trimmed.slice(0, -version[0].length) };
  return {
    problem: `names API version ${version[1]}, but the product speaks version ${PLATFORM_API_VERSION} only; give the base without a version (${trimmed.slice(0, -version[0].length)})`,
  };
}
