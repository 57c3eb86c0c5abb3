// @rolelink/db/list: a link's user list as the User Management API writes and reads it (link_user), the
// change journal every list write appends to (list_change), expiries, uploads, the shrink hold, idempotency
// keys and the COPY body a PUT's ids travel in (StoredIdsCopy).
export * from './list-single.repo';
export {
  replaceList,
  roleHolders,
  type ReplaceInput,
  type ReplaceOutcome,
  type ReplaceSource,
} from './list-replace.repo';
export * from './stored-ids-copy';
export * from './list-preview.repo';
export * from './list-stream';
export * from './list-changes.repo';
export * from './list-expiry.repo';
export * from './uploads.repo';
export * from './held-changes.repo';
export * from './idempotency.repo';
