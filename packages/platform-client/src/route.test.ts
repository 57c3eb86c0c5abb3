import { routeOf } from './route';

describe('routeOf', () => {
  it('puts every role change of one guild under the same route and the guild as major parameter', () => {
    const a = routeOf('put', 'http://127.0.0.1:9/api/v10/guilds/111/members/222222222222222222/roles/333');
    const b = routeOf('PUT', 'http://127.0.0.1:9/api/v10/guilds/111/members/444444444444444444/roles/555');
    expect(a).toEqual({ routeKey: 'PUT:/guilds/:id/members/:id/roles/:id', major: '111' });
    expect(b).toEqual(a);
  });

  it('keeps methods apart until the platform says they share a bucket', () => {
    const del = routeOf('DELETE', 'http://h/api/v10/guilds/1/members/2/roles/3');
    expect(del.routeKey).toBe('DELETE:/guilds/:id/members/:id/roles/:id');
  });

  it('ignores the query string and uses a global major parameter for top-level routes', () => {
    expect(routeOf('GET', 'http://h/api/v10/users/@me')).toEqual({ routeKey: 'GET:/users/@me', major: 'global' });
    expect(routeOf('GET', 'http://h/api/v10/guilds/9/members?limit=1000&after=5')).toEqual({
      routeKey: 'GET:/guilds/:id/members',
      major: '9',
    });
  });
});
