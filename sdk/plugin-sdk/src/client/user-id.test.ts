import { RoleLinkApiError } from './errors';
import { RoleLinkClient } from './role-link-client';

describe("the SDK's user id check", () => {
  it('refuses a padded id before any request, with the service 400 body naming it', async () => {
    const fetch = jest.fn<Promise<Response>, Parameters<typeof globalThis.fetch>>();
    const client = new RoleLinkClient({ baseUrl: 'http://127.0.0.1:9', token: 't', guildId: '1', roleId: '2', fetch });
    for (const call of [
      () => client.addUser('0100000000000009999'),
      () => client.removeUser('0100000000000009999'),
      () => client.hasUser('0100000000000009999'),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RoleLinkApiError);
      expect((err as RoleLinkApiError).body).toEqual({
        statusCode: 400,
        message: 'Validation error',
        details: ['params.userId: "0100000000000009999" has a leading zero; a snowflake never starts with 0'],
      });
    }
    const put = await client.putUsers(['10000000000000000', '00000000000000042']).catch((e: unknown) => e);
    expect((put as RoleLinkApiError).body).toEqual({
      statusCode: 400,
      message: 'Validation error',
      details: ['body.1: "00000000000000042" has a leading zero; a snowflake never starts with 0'],
    });
    const chunk = await client.addChunk('u', ['18446744073709551616']).catch((e: unknown) => e);
    expect((chunk as RoleLinkApiError).statusCode).toBe(400);
    await expect(client.putUsers(['18446744073709551615'], { idempotencyKey: '' }).catch(() => 'sent')).resolves.toBe(
      'sent',
    );
    // only the valid PUT went out (retried, as nothing listens)
    expect(new Set(fetch.mock.calls.map(([, init]) => `${init?.method} ${init?.body as string}`))).toEqual(
      new Set(['PUT ["18446744073709551615"]']),
    );
  });
});
