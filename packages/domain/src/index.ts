export * from './plans';
export * from './slots';
export * from './shrink';
export * from './sync-split';
export * from './token';
export * from './plugin-url';
export * from './permissions';
export * from './bot-invite';
