export { RoleLinkClient, CONFIRM_HEADER, type RoleLinkClientOptions } from './role-link-client';
export {
  REPLACE_DEFAULTS,
  type ReplaceOptions,
  type ReplaceOutcome,
  type ReplaceApplied,
  type ReplaceHeld,
  type ReplaceDryRun,
} from './replace-users';
export { RoleLinkApiError, RoleLinkNetworkError } from './errors';
export { DEFAULT_RETRY, type RetryOptions } from './retry';
export type {
  AddUserOptions,
  CallOptions,
  DryRunResult,
  ErrorBody,
  HeldChange,
  IdempotentOptions,
  ListMeta,
  ShrinkBody,
  UploadProgress,
  WholeListOptions,
  WriteOutcome,
} from './types';
