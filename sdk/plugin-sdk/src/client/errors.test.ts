import { RoleLinkApiError } from './errors';
import { RoleLinkClient, serviceOrigin } from './role-link-client';

const link = { token: 't', guildId: '1', roleId: '2' };

/** A fetch that answers every request with `status` and the JSON `body`, and records what was asked. */
function answering(status: number, body: unknown) {
  return jest.fn<Promise<Response>, Parameters<typeof globalThis.fetch>>(() =>
    Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })),
  );
}

describe("RoleLinkApiError's message", () => {
  it("carries the service's first validation detail and how many more there are", async () => {
    const fetch = answering(400, {
      statusCode: 400,
      message: 'Validation error',
      details: ['body.expires_at: must be an RFC 3339 time', 'body.ttl_seconds: must be a positive integer'],
    });
    const client = new RoleLinkClient({ baseUrl: 'http://127.0.0.1:9', ...link, fetch });
    const err = await client.addUser('100000000000000000', { expiresAt: 'soon' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RoleLinkApiError);
    expect(err).toMatchObject({
      statusCode: 400,
      message: 'Validation error: body.expires_at: must be an RFC 3339 time (and 1 more)',
      body: { message: 'Validation error', details: expect.any(Array) },
    });
  });

  it("is the service's message alone when there is no detail, and the status when there is no message", async () => {
    const refused = { statusCode: 403, message: 'Invalid or revoked token' };
    const client = new RoleLinkClient({ baseUrl: 'http://127.0.0.1:9', ...link, fetch: answering(403, refused) });
    await expect(client.hasUser('100000000000000000')).rejects.toMatchObject({ message: 'Invalid or revoked token' });
    const bare = new RoleLinkClient({ baseUrl: 'http://127.0.0.1:9', ...link, fetch: answering(404, 'nope') });
    await expect(bare.hasUser('100000000000000000')).rejects.toMatchObject({ message: 'HTTP 404' });
  });

  it("names the bad id of the SDK's own check in the message too", async () => {
    const fetch = answering(200, {});
    const client = new RoleLinkClient({ baseUrl: 'http://127.0.0.1:9', ...link, fetch });
    await expect(client.putUsers(['100000000000000000', '12'])).rejects.toMatchObject({
      statusCode: 400,
      message: 'Validation error: body.1: must be a 17 to 20 digit snowflake string',
    });
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('baseUrl', () => {
  it('is the service origin, a trailing slash allowed', () => {
    expect(serviceOrigin('https://rolelink.example.com')).toBe('https://rolelink.example.com');
    expect(serviceOrigin('https://rolelink.example.com/')).toBe('https://rolelink.example.com');
    expect(serviceOrigin('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
  });

  it('with a path fails at construction, saying what it should be', () => {
    expect(() => new RoleLinkClient({ baseUrl: 'https://host.example/api/role-link', ...link })).toThrow(
      new TypeError(
        'baseUrl must be the Role Link service\'s origin without a path, here "https://host.example"; got "https://host.example/api/role-link". The client adds /api/role-link/<guildId>/<roleId>/users itself.',
      ),
    );
    for (const bad of ['https://host.example/x/', 'https://host.example/?a=1', 'https://u:p@host.example'])
      expect(() => new RoleLinkClient({ baseUrl: bad, ...link })).toThrow(
        /origin without a path, here "https:\/\/host\.example"/,
      );
  });

  it('that is not an absolute http(s) URL fails at construction', () => {
    expect(() => new RoleLinkClient({ baseUrl: 'rolelink.example.com', ...link })).toThrow(
      /^baseUrl must be the Role Link service's origin, an absolute http\(s\) URL \(e\.g\. "https:\/\/rolelink\.example\.com"\); got "rolelink\.example\.com"$/,
    );
    expect(() => new RoleLinkClient({ baseUrl: 'ftp://host.example', ...link })).toThrow(/must be an http\(s\) URL/);
  });
});
