export * from './connection';
export * from './producer';
export * from './consumer';
export * from './role-sync';
export * from './plugin-jobs';
export * from './sync-notifier';
export * from './schedulers';
export * from './retry-backoff';
