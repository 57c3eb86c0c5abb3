import { startEmulator, type RunningEmulator } from '../server';
import {
  ALPHA,
  authorizePage,
  GENERATED_START,
  oauthSeed,
  PEOPLE,
  REDIRECT,
  submitAuthorize,
} from '../../test/support/oauth-fixtures';

const BOT_USER = '1000000000000000001';
const buttonValues = (html: string) => [...html.matchAll(/<button[^>]*name="user_id" value="(\d+)"/g)].map((m) => m[1]);

describe('OAuth2 sign-in page (/oauth2/authorize)', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator({ port: 0, seed: oauthSeed() });
  });
  afterEach(() => emulator.close());

  it('lists every guild owner and seeded member with id and guilds, but neither the bot nor generated members', async () => {
    const page = await authorizePage(emulator);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.html).toMatch(/<title>[^<]*1000000000000000010[^<]*emulator[^<]*<\/title>/);
    expect(buttonValues(page.html)).toEqual([PEOPLE.owner, PEOPLE.mod, PEOPLE.admin, PEOPLE.plain]);
    expect(page.html).not.toContain(BOT_USER);
    expect(page.html).not.toContain(GENERATED_START);
    expect(page.html).toContain('Moderator Mo (@mod_user)');
    expect(page.html).toContain(`id ${PEOPLE.plain} · Alpha, Beta (owner)`);
    // Every button posts back here in a form carrying the request; Cancel has its own form.
    expect(page.html.match(/<form method="post" action="\/oauth2\/authorize">/g)).toHaveLength(2);
    expect(page.html).toContain(`<input type="hidden" name="redirect_uri" value="${REDIRECT}">`);
    expect(page.html).toContain('<input type="hidden" name="state" value="st4te">');
    expect(page.html).toMatch(/<button type="submit" class="cancel">Cancel<\/button>/);
  });

  it('escapes hostile user and guild names, the state and the redirect URI on the page', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const seed = oauthSeed();
    seed.guilds[0]!.name = `"><script>alert(1)</script>`;
    seed.guilds[0]!.members![1]!.username = hostile;
    seed.guilds[0]!.members![1]!.globalName = `'"&<b>`;
    emulator.state.seed(seed);
    emulator.state.registerRedirectUri(`${REDIRECT}?a="<x>`);
    const page = await authorizePage(emulator, { state: '"><script>x</script>', redirect_uri: `${REDIRECT}?a="<x>` });
    expect(page.status).toBe(200);
    expect(page.html).not.toMatch(/<script|<img|<b>/);
    expect(page.html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(page.html).toContain('&#39;&#34;&#38;&#60;b&#62; (@&#60;img');
    expect(page.html).toContain('&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62; (owner)');
    expect(page.html).toContain('name="state" value="&#34;&#62;&#60;script&#62;x&#60;/script&#62;"');
  });

  it('sends a strict Content-Security-Policy, refuses framing and is not cached', async () => {
    const page = await authorizePage(emulator);
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    // Browsers apply form-action to the redirect after the post, so the client's origin is allowed too.
    expect(csp).toContain("form-action 'self' http://127.0.0.1:3001;");
    expect(csp).not.toContain('script-src');
    expect(page.html).toContain(`<style nonce="${nonce}">`);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const second = await authorizePage(emulator);
    expect(second.headers.get('content-security-policy')).not.toContain(`'nonce-${nonce}'`);
  });

  it('answers 400 with an error page naming the problem instead of redirecting', async () => {
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{ client_id: 'someone-else' }, /Unknown client_id &#34;someone-else&#34;/],
      [{ redirect_uri: undefined }, /Missing redirect_uri/],
      [{ redirect_uri: 'javascript:alert(1)' }, /Invalid redirect_uri/],
      // Registered exactly or refused, as on the platform: another port, a trailing slash, another host.
      [{ redirect_uri: 'http://127.0.0.1:3002/auth/callback' }, /Invalid OAuth2 redirect_uri .*registered redirects/],
      [{ redirect_uri: `${REDIRECT}/` }, /Invalid OAuth2 redirect_uri/],
      [{ redirect_uri: 'http://evil.example/auth/callback' }, /Invalid OAuth2 redirect_uri/],
      [{ response_type: 'token' }, /Unsupported response_type &#34;token&#34;/],
      [{ response_type: undefined }, /Unsupported response_type/],
      [{ scope: 'identify nonsense' }, /Invalid scope: nonsense/],
    ];
    for (const [params, message] of cases) {
      const page = await authorizePage(emulator, params);
      expect([params, page.status, page.headers.get('location')]).toEqual([params, 400, null]);
      expect(page.html).toMatch(message);
      expect(page.headers.get('content-security-policy')).toContain("form-action 'none'");
    }
  });

  it('redirects to redirect_uri with a fresh code and the state when a user is chosen', async () => {
    const first = await submitAuthorize(emulator, { user_id: PEOPLE.mod });
    expect(first.status).toBe(302);
    const location = new URL(first.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect([...location.searchParams.keys()]).toEqual(['code', 'state']);
    expect(location.searchParams.get('code')).toMatch(/^[\w-]{32}$/);
    expect(location.searchParams.get('state')).toBe('st4te');
    const second = new URL((await submitAuthorize(emulator, { user_id: PEOPLE.mod })).headers.get('location')!);
    expect(second.searchParams.get('code')).not.toBe(location.searchParams.get('code'));
  });

  it('keeps the redirect URI query and leaves state out when none was given', async () => {
    emulator.state.registerRedirectUri(`${REDIRECT}?tenant=a`);
    const res = await submitAuthorize(emulator, {
      user_id: PEOPLE.owner,
      state: undefined,
      redirect_uri: `${REDIRECT}?tenant=a`,
    });
    const location = new URL(res.headers.get('location')!);
    expect([...location.searchParams.keys()]).toEqual(['tenant', 'code']);
  });

  it('redirects with error=access_denied and the state on Cancel', async () => {
    const res = await submitAuthorize(emulator, { action: 'cancel' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The resource owner or authorization server denied the request',
      state: 'st4te',
    });
  });

  it('refuses a posted choice of a generated member, the bot, an unknown user or a wrong client', async () => {
    for (const fields of [
      { user_id: GENERATED_START },
      { user_id: BOT_USER },
      { user_id: '999999999999999999' },
      { user_id: 'x' },
      { user_id: PEOPLE.owner, client_id: 'other' },
      { user_id: PEOPLE.owner, action: 'maybe' },
    ]) {
      const res = await submitAuthorize(emulator, fields);
      expect([fields, res.status, res.headers.get('location')]).toEqual([fields, 400, null]);
      expect(await res.text()).toContain('<p role="alert">');
    }
  });

  it('stops offering a seeded member removed through the control API', async () => {
    emulator.state.removeMember(ALPHA, PEOPLE.admin);
    expect(buttonValues((await authorizePage(emulator)).html)).not.toContain(PEOPLE.admin);
    expect((await submitAuthorize(emulator, { user_id: PEOPLE.admin })).status).toBe(400);
  });
});
