import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { bodyOf } from '../support/body';

/** The CSRF token of a signed-in agent (GET /dashboard-api/me). */
export async function csrfOf(agent: TestAgent): Promise<string> {
  const me = await agent.get('/dashboard-api/me').expect(200);
  return bodyOf<{ csrf_token: string }>(me).csrf_token;
}

/**
 * Signs a cookie-keeping agent in as `userId` the way a browser does: /auth/login redirects to the
 * platform's authorize page, the user picks themselves there (a form POST), the platform redirects back
 * to /auth/callback with a code and the state, and the dashboard starts the session.
 */
export async function signIn(dashboardUrl: string, userId: string): Promise<{ agent: TestAgent; csrf: string }> {
  const agent = request.agent(dashboardUrl);
  const login = await agent.get('/auth/login?next=/guilds').expect(302);
  const authorize = new URL(login.headers.location as string);
  const form = new URLSearchParams({
    client_id: authorize.searchParams.get('client_id') ?? '',
    redirect_uri: authorize.searchParams.get('redirect_uri') ?? '',
    scope: authorize.searchParams.get('scope') ?? '',
    state: authorize.searchParams.get('state') ?? '',
    action: 'allow',
    user_id: userId,
  });
  const chosen = await fetch(new URL('/oauth2/authorize', authorize), {
    method: 'POST',
    body: form,
    redirect: 'manual',
  });
  if (chosen.status !== 302)
    throw new Error(`the platform's authorize page answered ${chosen.status}: ${await chosen.text()}`);
  const back = new URL(chosen.headers.get('location')!);
  const done = await agent.get(`${back.pathname}${back.search}`).expect(302);
  if (done.headers.location !== '/guilds') throw new Error(`sign-in ended at ${String(done.headers.location)}`);
  return { agent, csrf: await csrfOf(agent) };
}
