import { DiscordAPIError, HTTPError } from '@discordjs/rest';
import { classifyPlatformError } from './errors';

/** An error answer as @discordjs/rest throws it: the platform's `{ code, message }` body and its status. */
const answered = (status: number, code: number, message: string) =>
  new DiscordAPIError({ code, message }, code, status, 'PUT', '/guilds/1/members/2/roles/3', {
    body: undefined,
    files: undefined,
  });

// The codes are written out here as the platform sends them, so a wrong RESTJSONErrorCodes member fails.
test.each([
  [404, 10007, 'Unknown Member', { kind: 'not_in_guild' }],
  [404, 10011, 'Unknown Role', { kind: 'unknown_role' }],
  [403, 50013, 'Missing Permissions', { kind: 'missing_permission' }],
  [403, 50001, 'Missing Access', { kind: 'guild_unavailable', code: 50001 }],
  [404, 10013, 'Unknown User', { kind: 'unknown_user' }],
  [403, 60003, 'Two factor is required for this operation', { kind: 'mfa_required' }],
  [401, 0, '401: Unauthorized', { kind: 'unauthorized' }],
  [404, 10004, 'Unknown Guild', { kind: 'guild_unavailable', code: 10004 }],
])('a %i with JSON code %i (%s) is classified by what the caller must do', (status, code, message, expected) => {
  expect(classifyPlatformError(answered(status, code, message))).toEqual(expected);
});

test('a 5xx is the platform answering (server_error), no answer at all is no_answer, another 4xx is failed with its code', () => {
  const request = { body: undefined, files: undefined };
  expect(classifyPlatformError(new HTTPError(500, 'Internal Server Error', 'GET', '/guilds/1', request))).toEqual({
    kind: 'server_error',
    status: 500,
    message: 'Internal Server Error',
  });
  expect(classifyPlatformError(answered(502, 0, 'Bad Gateway'))).toMatchObject({ kind: 'server_error', status: 502 });
  expect(classifyPlatformError(new TypeError('fetch failed'))).toEqual({ kind: 'no_answer', message: 'fetch failed' });
  expect(classifyPlatformError(answered(400, 50035, 'Invalid Form Body'))).toEqual({
    kind: 'failed',
    status: 400,
    code: 50035,
    message: 'Invalid Form Body',
  });
});
