export * from './iframe-token';
export * from './client';
