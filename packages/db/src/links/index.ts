// @rolelink/db/links: links and guilds themselves (role_link, guild): the request path's link context,
// link administration (create, update, delete) and the purge of deleted links (link_purge).
export * from './links.repo';
export * from './link-admin.repo';
export * from './link-purge.repo';
export * from './guilds.repo';
