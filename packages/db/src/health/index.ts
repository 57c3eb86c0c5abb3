// @rolelink/db/health: plugin health checks (plugin_health_check), written by the broker's poll.
export * from './health.repo';
