import { z } from 'zod';
import { AppError, zodIssues } from './app-error';

describe('AppError.validation', () => {
  it('answers 400 Validation error with one "<field>: <message>" detail per issue and keeps the issues', () => {
    const err = AppError.validation([{ field: 'body.3', message: 'must be a 17 to 20 digit snowflake string' }]);
    expect(err.status).toBe(400);
    expect(err.code).toBe('validation');
    expect(err.toBody()).toEqual({ statusCode: 400, message: 'Validation error', details: ['body.3: must be a 17 to 20 digit snowflake string'] });
    expect(err.issues).toEqual([{ field: 'body.3', message: 'must be a 17 to 20 digit snowflake string' }]);
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
