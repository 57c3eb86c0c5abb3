export * from './connection';
export * from './producer';
export * from './consumer';
export * from './role-sync';
export * from './plugin-calls-client';
export * from './sync-notifier';
