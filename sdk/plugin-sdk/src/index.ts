export * from './iframe-token';
export * from './event-signature';
export * from './client';
export * from './server';
export type * from './host-types';
