import { z } from 'zod';
import { errorBody } from '@rolelink/contracts';
import { AppError, zodIssues } from './app-error';

describe('AppError.validation', () => {
  it('answers 400 Validation error with one "<field>: <message>" detail per issue, and each issue under the form field it names', () => {
    const err = AppError.validation([
      { field: 'body.plugin_url', message: 'must be a URL' },
      { field: 'params.guildId', message: 'must be a numeric snowflake' },
    ]);
    expect([err.status, err.code]).toEqual([400, 'validation']);
    expect(err.toBody()).toEqual({
      statusCode: 400,
      message: 'Validation error',
      details: ['body.plugin_url: must be a URL', 'params.guildId: must be a numeric snowflake'],
      errors: [
        { field: 'plugin_url', message: 'must be a URL' },
        { field: 'params.guildId', message: 'must be a numeric snowflake' },
      ],
    });
  });

  it('leaves `errors` out for the User Management API, whose body stays `details` only', () => {
    const err = AppError.validation([{ field: 'body.3', message: 'must be a 17 to 20 digit snowflake string' }]);
    expect(err.toBody({ fieldErrors: false })).toEqual({
      statusCode: 400,
      message: 'Validation error',
      details: ['body.3: must be a 17 to 20 digit snowflake string'],
    });
  });

  it('names zod issues by their path under the given part, or the part alone for the root', () => {
    const nested = z.object({ guildId: z.string() }).safeParse({ guildId: 1 });
    const root = z.array(z.string()).safeParse('x');
    if (nested.success || root.success) throw new Error('expected failures');
    expect(zodIssues(nested.error, 'params').map((i) => i.field)).toEqual(['params.guildId']);
    expect(zodIssues(root.error, 'body').map((i) => i.field)).toEqual(['body']);
    expect(zodIssues(nested.error).map((i) => i.field)).toEqual(['guildId']);
  });
});

describe('AppError#toBody, the one serializer', () => {
  it('writes every factory as an ErrorBody', () => {
    const bodies = [
      new AppError(404, 'Role link not found', 'not_found').toBody(),
      AppError.field(400, 'plugin_url', 'Invalid plugin URL: must use HTTPS', 'invalid_plugin_url').toBody(),
      AppError.fields(400, 'Invalid config', 'invalid_config', [
        { field: 'min_level', message: 'must be at most 100' },
      ]).toBody(),
      AppError.pluginFailure(
        502,
        'Failed to register with plugin server',
        'plugin_register_failed',
        'connect ECONNREFUSED',
      ).toBody(),
    ];
    for (const body of bodies) expect(errorBody.strict().safeParse(body).success).toBe(true);
    expect(bodies[3]).toEqual({
      statusCode: 502,
      message: 'Failed to register with plugin server',
      detail: 'connect ECONNREFUSED',
    });
  });

  it('rebuilds another service’s answer so it serializes the same', () => {
    const original = AppError.validation([{ field: 'params.linkId', message: 'must be numeric' }]);
    const body = errorBody.parse(original.toBody());
    const rebuilt = AppError.fromBody(400, 'validation', body);
    expect([rebuilt.status, rebuilt.code, rebuilt.toBody()]).toEqual([400, 'validation', original.toBody()]);
  });

  it('sends a prescribed body as it is (the shrink hold)', () => {
    const hold = {
      errors: {
        error: 'confirm_required' as const,
        code: 'shrink' as const,
        change_id: '6f1c2a40-5b7e-4c55-9d7e-2f0a7b1c9e11',
        previous: 40,
        next: 30,
        removals: 10,
        message: 'held',
      },
      requestId: 'r1',
    };
    const err = AppError.shrinkHold(hold);
    expect([err.status, err.code, err.message, err.toBody()]).toEqual([409, 'shrink', 'held', hold]);
  });
});
