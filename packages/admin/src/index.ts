export * from './deps';
export * from './ids';
export * from './guilds';
export * from './link-create';
export * from './link-delete';
export * from './link-update';
export * from './link-show';
export * from './removals';
