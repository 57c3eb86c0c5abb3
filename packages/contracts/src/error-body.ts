import { z } from 'zod';

/**
 * The one error body of every service (spec 7: `statusCode` and `message`), built only by the
 * serializer in packages/runtime (`AppError#toBody`), never by hand. The optional parts:
 * - `details`: validation errors, `<field>: <message>` strings (the User Management API's documented form);
 * - `errors`: problems placed next to a form field, on every surface except the User Management API,
 *   whose `errors` key is the shrink hold's object (spec 4.1 rule 6, `shrinkBodySchema`);
 * - `detail`: why a plugin call failed, for the admin who reads the 502.
 * The object stays open (a field added later does not break a client); the 409 shrink hold is the one
 * error answer of another shape (`errorAnswer`).
 */
export const fieldErrorSchema = z.object({ field: z.string(), message: z.string() });

export const errorBody = z.object({
  statusCode: z.number().int().min(400).max(599),
  message: z.string().min(1),
  details: z
    .array(z.string())
    .optional()
    .describe(
      'On validation errors: `<field>: <message>`, the field a dotted path under the request part (`body.3`, `params.guildId`)',
    ),
  errors: z
    .array(fieldErrorSchema)
    .optional()
    .describe('Dashboard, broker and CLI only: each problem with the form field it belongs to'),
  detail: z.string().optional().describe('Dashboard and broker only: why a plugin call failed'),
});
// Its type is ServiceErrorBody in @rolelink/wire-types (checked in wire-types.check.ts).
export type { ServiceErrorBody } from '@rolelink/wire-types';
