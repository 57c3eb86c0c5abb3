// @rolelink/db/notifications: the owner's notifications and their settings (notification, guild_notify_settings).
export * from './notifications.repo';
