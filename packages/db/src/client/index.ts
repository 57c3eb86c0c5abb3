// @rolelink/db/client: what every concern of the package stands on and no table owns: the pool (createDb),
// the one handle type every repository takes (Queryable) and its transactions, COPY … FROM STDIN (copyIn),
// the readiness ping, Prisma's types for the few places that hold its client, how user ids are stored
// (user-id.ts: id - 2^63, for SQL that tests and fixtures write themselves) and every advisory-lock key.
export * from './client';
export * from './session-presence';
export * from './queryable';
export * from './copy-in';
export * from './user-id';
export * from './advisory-locks';
