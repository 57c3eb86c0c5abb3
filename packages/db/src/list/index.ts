// @rolelink/db/list: a link's user list as the User Management API writes and reads it (link_user), the
// change journal every list write appends to (list_change), uploads, the shrink hold and idempotency keys.
export * from '../list-single.repo';
export {
  replaceList,
  roleHolders,
  type ReplaceInput,
  type ReplaceOutcome,
  type ReplaceSource,
} from '../list-replace.repo';
export { StoredIdsCopy, StoredIdKeys } from '../stored-ids-copy';
export * from '../list-preview.repo';
export * from '../list-stream';
export * from '../list-changes.repo';
export * from '../list-expiry.repo';
export * from '../uploads.repo';
export * from '../held-changes.repo';
export * from '../idempotency.repo';
