export * from './config-schema';
export * from './token-store';
export * from './plugin-handlers';
export * from './express';
export * from './frame-ancestors';
