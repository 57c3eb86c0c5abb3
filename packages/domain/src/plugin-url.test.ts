import { normalizePluginUrl } from './plugin-url';

describe('normalizePluginUrl', () => {
  it('accepts a public HTTPS URL and strips the trailing slash', () => {
    expect(normalizePluginUrl('https://plugin.example.com/base/')).toEqual({
      ok: true,
      url: 'https://plugin.example.com/base',
    });
  });

  it.each([
    ['http://plugin.example.com', 'HTTPS'],
    ['https://localhost/x', 'private'],
    ['https://127.0.0.1', 'private'],
    ['https://2130706433', 'private'],
    ['https://0x7f.1', 'private'],
    ['https://[::1]', 'private'],
    ['https://[::ffff:127.0.0.1]', 'private'],
    ['https://[::127.0.0.1]', 'private'],
    ['https://10.1.2.3', 'private'],
    ['https://172.16.0.1', 'private'],
    ['https://192.168.1.1', 'private'],
    ['https://169.254.169.254', 'private'],
    ['https://0.0.0.0', 'private'],
    ['https://svc.internal', 'private'],
    ['https://printer.local', 'private'],
    ['https://user:pw@plugin.example.com', 'credentials'],
    ['not a url', 'valid URL'],
  ])('rejects %s', (raw, reason) => {
    const r = normalizePluginUrl(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });

  it('rejects URLs over 500 characters', () => {
    expect(normalizePluginUrl(`https://a.example.com/${'x'.repeat(480)}`).ok).toBe(false);
  });

  it('lets an allow-listed loopback host through, and nothing else', () => {
    expect(normalizePluginUrl('https://127.0.0.1:8443', ['127.0.0.1']).ok).toBe(true);
    expect(normalizePluginUrl('https://10.0.0.1', ['127.0.0.1']).ok).toBe(false);
  });
});
