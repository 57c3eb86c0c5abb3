export * from './iframe-token';
export * from './client';
export * from './server';
export type * from './host-types';
