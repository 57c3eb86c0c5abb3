import type { z } from 'zod';
import type * as Wire from '@rolelink/wire-types';
import * as api from './api-bodies';
import { dryRunResultSchema } from './api';
import { errorBody } from './error-body';
import {
  conditionSchema,
  configSchemaResponse,
  fieldSchema,
  iframeResponseSchema,
  sectionSchema,
} from './config-schema';
import { pluginHealthReport } from './health';
import { pluginConfigSubmitBody, pluginEvent, pluginLinkBody, pluginRegisterBody } from './plugin-webhooks';

/**
 * Every zod schema here that parses something crossing the wire between plugins and the service must
 * parse to exactly its type in @rolelink/wire-types, the one declaration the plugin SDK ships. Only the
 * type checker reads this file: a schema and its wire type that drift apart fail `pnpm typecheck` here.
 */

/** A and B assign to each other (this catches a property required on one side and optional on the other). */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Every property made required, at every depth: an optional property only one side has stops assigning. */
type AllRequired<T> = T extends object ? { [K in keyof T]-?: AllRequired<T[K]> } : T;
/** Equal for the wire: the same properties, each required or optional alike (zod's `x?: T | undefined` is `x?: T`). */
type Same<A, B> = Mutual<A, B> extends true ? Mutual<AllRequired<A>, AllRequired<B>> : false;
type Expect<T extends true> = T;
type Parses<S extends z.ZodType, W> = Same<z.infer<S>, W>;

export type WireTypesMatchSchemas = [
  Expect<Parses<typeof errorBody, Wire.ServiceErrorBody>>,
  Expect<Parses<typeof api.idListBody, Wire.IdList>>,
  Expect<Parses<typeof api.listMetaSchema, Wire.ListMeta>>,
  Expect<Parses<typeof api.userExpiryBody, Wire.UserExpiryBody>>,
  Expect<Parses<typeof api.usersListBody, Wire.UsersListBody>>,
  Expect<Parses<typeof api.userCountBody, Wire.UserCountBody>>,
  Expect<Parses<typeof api.uploadCreatedBody, Wire.UploadCreatedBody>>,
  Expect<Parses<typeof api.chunkAcceptedBody, Wire.ChunkAcceptedBody>>,
  Expect<Parses<typeof api.uploadCancelledBody, Wire.UploadCancelledBody>>,
  Expect<Parses<typeof api.userExistsBody, Wire.UserExistsBody>>,
  Expect<Parses<typeof api.userAddedBody, Wire.UserAddedBody>>,
  Expect<Parses<typeof api.userRemovedBody, Wire.UserRemovedBody>>,
  Expect<Parses<typeof api.shrinkBodySchema, Wire.ShrinkBody>>,
  Expect<Parses<typeof dryRunResultSchema, Wire.DryRunResult>>,
  Expect<Parses<typeof api.dryRunBody, Wire.DryRunBody>>,
  Expect<Parses<typeof pluginHealthReport, Wire.PluginHealthReport>>,
  Expect<Parses<typeof conditionSchema, Wire.ConfigCondition>>,
  Expect<Parses<typeof fieldSchema, Wire.ConfigField>>,
  Expect<Parses<typeof sectionSchema, Wire.ConfigSection>>,
  Expect<Parses<typeof configSchemaResponse, Wire.ConfigSchemaResponse>>,
  Expect<Parses<ReturnType<typeof iframeResponseSchema>, Wire.IframeConfigResponse>>,
  Expect<Parses<typeof pluginLinkBody, Wire.PluginLinkBody>>,
  Expect<Parses<typeof pluginRegisterBody, Wire.PluginRegisterBody>>,
  Expect<Parses<typeof pluginConfigSubmitBody, Wire.PluginConfigSubmitBody>>,
  Expect<Parses<typeof pluginEvent, Wire.PluginEvent>>,
];
