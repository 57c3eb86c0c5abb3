export * from './client';
export * from './errors';
export * from './route';
export * from './role-holders';
export * from './rate-limit/shared-limiter';
export * from './guild-members';
export * from './setup-check';
export * from './application-key';
