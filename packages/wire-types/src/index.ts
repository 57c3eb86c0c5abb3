/**
 * The TypeScript types of what crosses the wire between plugins and the service: the User Management
 * API's bodies, the calls the service makes to a plugin, and the error body. Types only, no
 * dependencies: @rolelink/contracts checks its zod schemas against them at compile time, and
 * @rolelink/plugin-sdk inlines them into its published package (docs/architecture.md "Wire types").
 */
export type * from './error-body';
export type * from './user-api';
export type * from './plugin-calls';
export type * from './config-form';
export type * from './events';
