// @rolelink/db/client: the pool (createDb), the one handle type every repository takes (Queryable) and
// its transactions, the readiness ping, and Prisma's types for the few places that hold its client.
export * from '../client';
export * from '../queryable';
