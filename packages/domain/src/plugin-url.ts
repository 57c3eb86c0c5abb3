import ipaddr from 'ipaddr.js';

export const MAX_PLUGIN_URL_LENGTH = 500;

/**
 * Address classes a plugin may never be reached at: everything ipaddr.js does not call `unicast`
 * (loopback, RFC 1918, link-local and metadata, CGNAT, ULA, mapped/NAT64/6to4/Teredo, …) plus 198.18/15
 * and IPv6's ::/8.
 */
export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.range() !== 'unicast') return true;
  // ipaddr.js calls ::/8 (IPv4-compatible `::127.0.0.1` among them, deprecated by RFC 4291) unicast, but
  // nothing public lives there and some stacks route it to the embedded IPv4 address.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(ipaddr.IPv6.parseCIDR('::/8'))) return true;
  if (parsed.kind() === 'ipv4' && (parsed as ipaddr.IPv4).match(ipaddr.IPv4.parseCIDR('198.18.0.0/15'))) return true;
  return false;
}

function isForbiddenName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local');
}

export type PluginUrlResult = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Creation-time check of a plugin URL (spec 2.1, notes/security.md). WHATWG URL parsing normalises
 * numeric host forms (`https://2130706433` is 127.0.0.1) before the checks run. This is the friendly
 * 400; the connect-time check in the plugin broker is the real boundary.
 */
export function normalizePluginUrl(raw: string, allowHosts: readonly string[] = []): PluginUrlResult {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: 'plugin URL is required' };
  if (raw.length > MAX_PLUGIN_URL_LENGTH)
    return { ok: false, reason: `plugin URL must be at most ${MAX_PLUGIN_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'plugin URL is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'plugin URL must use HTTPS' };
  if (url.username || url.password) return { ok: false, reason: 'plugin URL must not contain credentials' };
  if (url.search || url.hash) return { ok: false, reason: 'plugin URL must not contain a query or fragment' };
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const allowed = allowHosts.includes(host);
  if (!allowed) {
    if (isForbiddenName(host)) return { ok: false, reason: 'plugin URL must not point to a private or internal host' };
    if (ipaddr.isValid(host) && isForbiddenAddress(host))
      return { ok: false, reason: 'plugin URL must not point to a private or internal address' };
  }
  const normalized = url.toString().replace(/\/+$/, '');
  if (normalized.length > MAX_PLUGIN_URL_LENGTH)
    return { ok: false, reason: `plugin URL must be at most ${MAX_PLUGIN_URL_LENGTH} characters` };
  return { ok: true, url: normalized };
}
