export * from './snowflake';
export * from './api';
export * from './queues';
