import type { DryRunResult as ContractDryRunResult, ListMeta as ContractListMeta, ShrinkBody as ContractShrinkBody } from '@rolelink/contracts';
import type { DryRunResult, ListMeta, ShrinkBody } from '../src';

/**
 * The SDK declares its wire types itself (it must stand alone as a package); this file fails
 * `pnpm typecheck` the day they drift from the service's contracts. Only the type checker reads it:
 * the published package never imports @rolelink/contracts.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const sameListMeta: Same<ListMeta, ContractListMeta> = true;
export const sameShrinkBody: Same<ShrinkBody, ContractShrinkBody> = true;
export const sameDryRunResult: Same<DryRunResult, ContractDryRunResult> = true;
