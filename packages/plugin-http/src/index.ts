export * from './failure';
export * from './guarded-agent';
export * from './plugin-http';
