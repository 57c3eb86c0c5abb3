export * from './app-error';
export * from './env';
export * from './logger';
export * from './http';
export * from './serve';
export * from './shutdown';
export * from './health';
export * from './metrics';
