export * from './iframe-token';
