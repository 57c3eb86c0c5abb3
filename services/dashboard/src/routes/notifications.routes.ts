import { Router } from 'express';
import {
  countUnreadNotifications,
  getNotifySettings,
  listNotifications,
  markNotificationsRead,
  putNotifySettings,
} from '@rolelink/db/notifications';
import {
  NOTIFY_KINDS,
  guildParams,
  notificationsQuery,
  notificationsReadBody,
  notifySettingsBody,
  type DashboardNotifications,
  type DashboardNotifySettings,
  type NotifyKind,
} from '@rolelink/contracts';
import { AppError, input, validate } from '@rolelink/runtime';
import { recordNotifySettingsChanged } from '@rolelink/admin';
import { actingAdmin, type DashboardContext } from '../context';

const listParts = { params: guildParams, query: notificationsQuery };
const readParts = { params: guildParams, body: notificationsReadBody };
const settingsParts = { params: guildParams };
const putParts = { params: guildParams, body: notifySettingsBody };

/**
 * Notifications of a guild (docs/dashboard.md "Notifications"): the list, marking read,
 * and the settings of which events message the owner and where. Every route checks the guild first, as
 * every guild route does, so admins of other guilds get 403.
 */
export function notificationsRouter(ctx: DashboardContext): Router {
  const router = Router();
  const db = ctx.admin.db.pool;

  router.get('/guilds/:guildId/notifications', validate(listParts), async (req, res) => {
    const { params, query } = input<typeof listParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const [rows, unread] = await Promise.all([
      listNotifications(db, g.id, { before: query.before, limit: query.limit }),
      countUnreadNotifications(db, g.id),
    ]);
    const body: DashboardNotifications = {
      notifications: rows.map((r) => ({
        id: r.id,
        kind: r.kind as NotifyKind,
        role_id: r.role_id,
        created_at: r.created_at.toISOString(),
        detail: r.detail,
        delivery: r.delivery,
        delivered_to: r.delivered_to,
        read: r.read_at !== null,
      })),
      unread,
      next_before: rows.length === query.limit ? rows[rows.length - 1]!.id : null,
    };
    res.set('Cache-Control', 'no-store').json(body);
  });

  router.post('/guilds/:guildId/notifications/read', validate(readParts), async (req, res) => {
    const { params, body } = input<typeof readParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const marked = await markNotificationsRead(db, g.id, 'all' in body ? null : body.ids);
    res.json({ marked });
  });

  router.get('/guilds/:guildId/notifications/settings', validate(settingsParts), async (req, res) => {
    const { params } = input<typeof settingsParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const [settings, channels] = await Promise.all([getNotifySettings(db, g.id), ctx.reader.textChannels(g.id)]);
    res.set('Cache-Control', 'no-store').json(view(settings, channels));
  });

  router.put('/guilds/:guildId/notifications/settings', validate(putParts), async (req, res) => {
    const { params, body } = input<typeof putParts>(res);
    const g = await ctx.access.guild(req, params.guildId);
    const channels = await ctx.reader.textChannels(g.id);
    // Only the guild's own text channels: the bot must never be pointed at another guild's channel.
    if (body.channel_id !== null && !channels.some((c) => c.id === body.channel_id)) {
      throw AppError.validation([{ field: 'body.channel_id', message: 'must be one of the guild’s text channels' }]);
    }
    const settings = {
      events: NOTIFY_KINDS.filter((k) => body.events.includes(k)),
      dm_owner: body.dm_owner,
      channel_id: body.channel_id,
    };
    await putNotifySettings(db, g.id, settings);
    await recordNotifySettingsChanged(actingAdmin(ctx, req), { guildId: g.id, settings });
    res.json(view(settings, channels));
  });
  return router;
}

function view(
  s: { events: string[]; dm_owner: boolean; channel_id: string | null },
  channels: { id: string; name: string }[],
): DashboardNotifySettings {
  return {
    events: NOTIFY_KINDS.filter((k) => s.events.includes(k)),
    dm_owner: s.dm_owner,
    channel_id: s.channel_id,
    channels,
  };
}
