import { ApiError, request } from './client';

// client.ts over Node's own fetch types: each test answers one request with a real Response.
function answer(status: number, body: string, statusText = ''): void {
  globalThis.fetch = jest.fn(() =>
    Promise.resolve(new Response(body, { status, statusText, headers: { 'Content-Type': 'application/json' } })),
  );
}

async function failure(): Promise<ApiError> {
  const err: unknown = await request('POST', '/dashboard-api/guilds/1/links', { body: {} }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err;
}

describe('request: error answers are read with the one error schema (errorBody)', () => {
  it('keeps a 502’s detail: why the plugin call failed', async () => {
    answer(
      502,
      JSON.stringify({
        statusCode: 502,
        message: 'Failed to register with plugin server',
        detail: 'connect ECONNREFUSED 10.0.0.1:443',
      }),
    );
    const err = await failure();
    expect([err.status, err.message, err.detail]).toEqual([
      502,
      'Failed to register with plugin server',
      'connect ECONNREFUSED 10.0.0.1:443',
    ]);
  });

  it('keeps the per-field errors and the validation lines', async () => {
    answer(
      400,
      JSON.stringify({
        statusCode: 400,
        message: 'Validation failed',
        details: ['body.plugin_url: must be https'],
        errors: [{ field: 'plugin_url', message: 'must be https' }],
      }),
    );
    const err = await failure();
    expect(err.fieldErrors).toEqual([{ field: 'plugin_url', message: 'must be https' }]);
    expect(err.details).toEqual(['body.plugin_url: must be https']);
    expect(err.detail).toBeUndefined();
  });

  it('says only the status for a body that is not the error schema (a proxy page, a wrong shape)', async () => {
    answer(504, '<html>Gateway Timeout</html>', 'Gateway Timeout');
    expect((await failure()).message).toBe('Request failed (504 Gateway Timeout)');
    answer(500, JSON.stringify({ statusCode: 500, message: 42 }));
    const wrong = await failure();
    expect([wrong.message, wrong.fieldErrors, wrong.details, wrong.detail]).toEqual([
      'Request failed (500)',
      [],
      [],
      undefined,
    ]);
  });

  it('answers a success with its body', async () => {
    answer(200, JSON.stringify({ ok: true }));
    await expect(request('GET', '/dashboard-api/me')).resolves.toEqual({ ok: true });
  });
});
