import { describePlatformFailure, isDefiniteRefusal, type PlatformFailure } from './platform-refusals';

const refusals: PlatformFailure[] = [
  { kind: 'guild_unavailable', code: 10004 },
  { kind: 'guild_unavailable', code: 50001 },
  { kind: 'missing_permission' },
  { kind: 'mfa_required' },
  { kind: 'not_in_guild' },
  { kind: 'unknown_user' },
  { kind: 'unknown_role' },
  { kind: 'unauthorized' },
  { kind: 'failed', status: 400, code: 50035, message: 'Invalid Form Body' },
];

describe('describePlatformFailure', () => {
  it.each(refusals.map((f) => [f.kind, f] as const))('never tells a definite refusal (%s) as "try again"', (_, f) => {
    expect(isDefiniteRefusal(f)).toBe(true);
    const text = describePlatformFailure(f, { inviteUrl: 'https://platform.example/oauth2/authorize?x' });
    expect(text.retry).toBe(false);
    expect(`${text.message} ${text.fix ?? ''}`).not.toMatch(/try again|did not answer/i);
    expect(text.message).toMatch(/^The chat platform answered \d{3}/);
  });

  it('names the code and the invite when the bot is not in the server', () => {
    const text = describePlatformFailure(
      { kind: 'guild_unavailable', code: 10004 },
      { inviteUrl: 'https://platform.example/oauth2/authorize?x' },
    );
    expect(text.message).toContain('404 10004 Unknown Guild: the bot is not in this server');
    expect(text.fix).toBe(
      'Someone with Manage Server in that server adds the bot with https://platform.example/oauth2/authorize?x.',
    );
  });

  it('tells a 5xx as the answer it is and silence as no answer, both to try again', () => {
    const five = describePlatformFailure({ kind: 'server_error', status: 500, message: 'Internal Server Error' });
    expect(five).toMatchObject({ retry: true });
    expect(five.message).toBe('The chat platform answered 500, a fault on its side; try again in a moment.');
    const none = describePlatformFailure({ kind: 'no_answer', message: 'timeout after 15000 ms' });
    expect(none.message).toBe('The chat platform did not answer (timeout after 15000 ms); try again in a moment.');
    expect(isDefiniteRefusal({ kind: 'server_error', status: 500, message: '' })).toBe(false);
  });
});
