export * from './broker-client';
