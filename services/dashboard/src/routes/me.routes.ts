import { Router } from 'express';
import type { DashboardMe } from '@rolelink/contracts';
import { csrfToken } from '../auth/csrf';
import type { OAuthClient } from '../auth/oauth-client';

function avatarUrl(user: { id: string; avatar: string | null }): string | null {
  return user.avatar ? `https://cdn.discordapp.com/avatars/${user.id}/${user.avatar}.png?size=64` : null;
}

/** Who is signed in, the CSRF token the web app sends back on every state-changing call, and the bot's invite URL. */
export function meRouter(oauth: Pick<OAuthClient, 'botInviteUrl'>): Router {
  const router = Router();
  router.get('/me', (req, res) => {
    const u = req.session.user!;
    const me: DashboardMe = {
      user: { id: u.id, username: u.username, global_name: u.global_name, avatar_url: avatarUrl(u) },
      csrf_token: csrfToken(req),
      add_bot_url: oauth.botInviteUrl(),
    };
    res.set('Cache-Control', 'no-store').json(me);
  });
  return router;
}
