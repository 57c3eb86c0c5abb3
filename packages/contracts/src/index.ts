export * from './snowflake';
export * from './api';
export * from './queues';
export * from './broker';
export * from './config-schema';
export * from './health';
export * from './dashboard';
export * from './api-bodies';
