// @rolelink/db/sync: what the bot worker reads and records to make the platform match the list (the
// applied record, pass state, diffs, the reconcile, per-member history, drift polls, blocks and outages),
// the "sync wanted" marks the API's outbox sweep re-enqueues and the sync lag figures.
export * from './sync-state.repo';
export * from './sync-diff.repo';
export * from './link-sync.repo';
export * from './applied-members.repo';
export * from './applied-outcomes.repo';
export * from './member-changes.repo';
export * from './member-lookup.repo';
export * from './listed-unreachable.repo';
export * from './reconcile.repo';
export * from './outbox.repo';
export * from './sync-lag.repo';
export * from './drift-poll.repo';
export * from './bot-application.repo';
export * from './guild-outage.repo';
export * from './link-blocks.repo';
export * from './link-state-facts.repo';
