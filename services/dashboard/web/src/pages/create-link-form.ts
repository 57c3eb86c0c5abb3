import { createLinkBody, type CreateLinkBody, type RoleChoice } from '@rolelink/contracts';
import { z } from 'zod';
import { choiceRequiredMessage, roleHasMembers } from './ExistingMembersChoice';

/** What the create-link form holds: the role search, the choices, and the owner's typed consent. */
export type CreateLinkValues = {
  role_query: string;
  role_id: string;
  plugin_url: string;
  existing_members: 'handover' | 'keep' | null;
  owner_consent: string;
};

export const CREATE_LINK_FIELDS = ['role_id', 'plugin_url', 'existing_members', 'owner_consent'] as const;

export const emptyCreateLink: CreateLinkValues = {
  role_query: '',
  role_id: '',
  plugin_url: '',
  existing_members: null,
  owner_consent: '',
};

/** Whether the chosen role asks the existing-members question (spec 1) and whether it needs the owner's consent. */
export function roleAsks(role: RoleChoice | undefined): { members: boolean; consent: boolean } {
  return {
    members: role !== undefined && roleHasMembers(role),
    consent: role !== undefined && role.privileged.length > 0,
  };
}

/**
 * The create-link form's schema, for the chosen role: each field is checked on its own (so every problem
 * shows at once), then the values become the request body and pass the contract's `createLinkBody`, the
 * schema the server parses with.
 */
export function createLinkForm(role: RoleChoice | undefined) {
  const asks = roleAsks(role);
  return z
    .object({
      role_query: z.string(),
      role_id: z.string().min(1, 'Choose a role'),
      plugin_url: z.string().trim().pipe(createLinkBody.shape.plugin_url),
      existing_members: z
        .enum(['handover', 'keep'])
        .nullable()
        .refine((v) => !asks.members || v !== null, { message: role ? choiceRequiredMessage(role) : '' }),
      owner_consent: z
        .string()
        .trim()
        .refine((v) => !asks.consent || v === role?.name, {
          message: `Type the role's name, ${role?.name ?? ''}, exactly as shown to consent`,
        }),
    })
    .transform((v): CreateLinkBody => ({
      role_id: v.role_id,
      plugin_url: v.plugin_url,
      ...(asks.members && v.existing_members !== null ? { existing_members: v.existing_members } : {}),
      ...(asks.consent ? { owner_consent: v.owner_consent } : {}),
    }))
    .pipe(createLinkBody);
}
