import type { CreatedLinkView } from '@rolelink/contracts';
import {
  encryptToken,
  generateToken,
  hashToken,
  MEMBERS_INTENT_MESSAGE,
  normalizePluginUrl,
  syncedLimit,
} from '@rolelink/domain';
import { inTransaction } from '@rolelink/db/client';
import { ensureGuild, insertLink, linkExistsForRole, recordHolderPage, removeLinkRows } from '@rolelink/db/links';
import { markMembersListingBlocked } from '@rolelink/db/sync';
import { AppError } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';
import { checkRoleForLink, type OwnerConsent } from './link-access';

/**
 * `askedMembers`: the caller must have answered the existing-members question (spec 1: the dashboard asks
 * it); a role with members and no answer (`keepMembers` undefined) is refused rather than handed over.
 */
export type CreateLinkInput = {
  guildId: string;
  roleId: string;
  pluginUrl: string;
  keepMembers?: boolean;
  askedMembers?: boolean;
} & OwnerConsent;
/** What the dashboard's create answers (the contract's view); the CLI prints the same. */
export type CreatedLink = CreatedLinkView;

/**
 * Creates a role link (spec 1 lifecycle, 3.1): validates the plugin URL, generates the token, records
 * the role's current holders (kept on the list in keep mode; the hand-over baseline otherwise), then
 * calls POST {plugin}/register through the broker. The row exists during the call so a plugin may test
 * its token against the API; on any register failure the link and its rows are removed again and the
 * caller gets 502 `Failed to register with plugin server`.
 */
export async function createLink(deps: AdminDeps, input: CreateLinkInput): Promise<CreatedLink> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const url = normalizePluginUrl(input.pluginUrl, deps.allowPrivatePluginHosts);
  if (!url.ok) throw new AppError(400, `Invalid plugin URL: ${url.reason}`, 'invalid_plugin_url');

  if (await linkExistsForRole(deps.db.pool, guildId, roleId))
    throw new AppError(409, 'A role link already exists for this role', 'link_exists');
  const role = await checkRoleForLink(deps, guildId, roleId, input);
  const plan = await ensureGuild(deps.db.pool, guildId);

  const holders = deps.holders ? await deps.holders(guildId, roleId) : null;
  const keep = input.keepMembers === true;
  // Neither choice works without the member listing when the role has holders (or keep is asked): say
  // which portal setting is off, never a bare 502.
  if (holders?.membersIntentMissing && (keep || holders.count > 0)) await refuseForMembersIntent(deps);
  if (input.askedMembers && input.keepMembers === undefined && holders && holders.count > 0) {
    const n = holders.count.toLocaleString('en-US');
    throw new AppError(
      400,
      `${n} ${holders.count === 1 ? 'member holds' : 'members hold'} this role now: choose Hand over or Keep current members`,
      'existing_members_required',
    );
  }
  if (keep) {
    if (!holders)
      throw new AppError(
        400,
        "Keep current members needs the platform to read the role's holders, and none is configured",
        'keep_unavailable',
      );
    if (!holders.exact)
      throw new AppError(
        400,
        'Keep current members is not available: the exact number of role members is unknown',
        'keep_unavailable',
      );
    if (holders.count > syncedLimit(plan)) {
      throw new AppError(
        400,
        `Keep current members is not available: the role has ${holders.count} members, more than the plan's synced limit of ${syncedLimit(plan)}`,
        'keep_unavailable',
      );
    }
  }

  const token = generateToken();
  const linkId = await insertNewLink(deps, { guildId, roleId, pluginUrl: url.url, token, keep });
  let recorded = 0;
  try {
    if (holders && holders.count > 0) {
      recorded = await recordHolders(deps, linkId, holders.pages(), keep).catch((err: unknown) => {
        throw err instanceof AppError
          ? err
          : new AppError(502, "Failed to read the role's current members from the platform", 'holders_unreadable');
      });
    }
    await deps.plugin.register(linkId);
  } catch (err) {
    await undoCreation(deps, linkId);
    throw err instanceof AppError ? err : new AppError(502, 'Failed to register with plugin server', 'register_failed');
  }
  await audit(deps, deps.db.pool, {
    guildId,
    roleId,
    action: 'link_created',
    detail: {
      plugin_url: url.url,
      member_mode: keep ? 'keep' : 'handover',
      existing_members: recorded,
      ...(role ? { role_name: role.name, privileged: role.privileged } : {}),
    },
  });
  // Who consented, and when (the entry's actor and time): its own entry, so the log can be filtered for it.
  if (role && role.privileged.length > 0)
    await audit(deps, deps.db.pool, {
      guildId,
      roleId,
      action: 'privileged_consent',
      detail: { role_name: role.name, permissions: role.privileged },
    });
  return {
    link_id: linkId,
    guild_id: guildId,
    role_id: roleId,
    plugin_url: url.url,
    member_mode: keep ? 'keep' : 'handover',
    existing_members: recorded,
  };
}

/**
 * 409 `members_intent_missing` with the banner's own wording, after marking the application as unable to
 * list members as the reconcile does, so the dashboard's banner and counts say so too.
 */
async function refuseForMembersIntent(deps: AdminDeps): Promise<never> {
  if (deps.appKey) await markMembersListingBlocked(deps.db.pool, deps.appKey);
  throw new AppError(
    409,
    `The role's current members must be read to create this link. ${MEMBERS_INTENT_MESSAGE}`,
    'members_intent_missing',
  );
}

/** The link row, or 409 when the role got a link meanwhile (the unique index on guild and role). */
async function insertNewLink(
  deps: AdminDeps,
  l: { guildId: string; roleId: string; pluginUrl: string; token: string; keep: boolean },
): Promise<string> {
  try {
    return await insertLink(deps.db.pool, {
      guildId: l.guildId,
      roleId: l.roleId,
      tokenHash: hashToken(l.token),
      tokenCiphertext: encryptToken(l.token, deps.secretKey()),
      pluginUrl: l.pluginUrl,
      memberMode: l.keep ? 'keep' : 'handover',
      // A keep-mode list is authoritative from the start (it holds the current members); a hand-over
      // link waits for the plugin's first full list.
      firstListAt: l.keep ? new Date() : null,
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505')
      throw new AppError(409, 'A role link already exists for this role', 'link_exists');
    throw err;
  }
}

/**
 * Writes the holders as the bot's applied record (they hold the role now) and, in keep mode, as the
 * link's list too, so the first sync changes nothing (spec 1).
 */
async function recordHolders(
  deps: AdminDeps,
  linkId: string,
  pages: AsyncIterable<string[]>,
  keep: boolean,
): Promise<number> {
  let total = 0;
  for await (const ids of pages) {
    if (!ids.length) continue;
    await inTransaction(deps.db.pool, (c) => recordHolderPage(c, linkId, ids, keep));
    total += ids.length;
  }
  return total;
}

async function undoCreation(deps: AdminDeps, linkId: string): Promise<void> {
  await inTransaction(deps.db.pool, (c) => removeLinkRows(c, linkId));
}
