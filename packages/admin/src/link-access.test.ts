import { ADMINISTRATOR, MANAGE_GUILD, MANAGE_ROLES } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { BotFactsReader } from './deps';
import { checkRoleForLink } from './link-access';

const G = '100000000000000001';
// The bot's role (managed, Manage Roles) at 5; a plain role and a Manage Server role below it; one above.
const facts =
  (botBits = MANAGE_ROLES): BotFactsReader =>
  () =>
    Promise.resolve({
      guildId: G,
      roles: [
        { id: G, name: '@everyone', position: 0, permissions: 0n, managed: false },
        { id: 'above', name: 'Staff', position: 8, permissions: 0n, managed: false },
        { id: 'bot', name: 'Role Link', position: 5, permissions: botBits, managed: true },
        { id: 'mods', name: 'Mods', position: 3, permissions: MANAGE_GUILD, managed: false },
        { id: 'admins', name: 'Admins', position: 2, permissions: ADMINISTRATOR, managed: false },
        { id: 'plain', name: 'Supporter', position: 1, permissions: 0n, managed: false },
      ],
      botRoleIds: ['bot'],
    });

async function refusal(
  p: Promise<unknown>,
): Promise<{ status: number; code: string; message: string; field: string | undefined }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return { status: err.status, code: err.code, message: err.message, field: err.issues?.[0]?.field };
}

describe('checkRoleForLink: the bot must manage the role, and a privileged role needs the owner', () => {
  it('accepts a plain role below the bot, and names what it learned', async () => {
    await expect(checkRoleForLink({ botFacts: facts() }, G, 'plain', {})).resolves.toEqual({
      name: 'Supporter',
      privileged: [],
    });
  });

  it('checks nothing where no platform is configured', async () => {
    await expect(checkRoleForLink({}, G, 'admins', {})).resolves.toBeNull();
  });

  it.each([
    ['above', 'role_above_bot', /below the bot's highest role/],
    ['bot', 'role_managed', /managed by an integration/],
  ])('refuses %s with 403 %s and the fix', async (roleId, code, message) => {
    const r = await refusal(checkRoleForLink({ botFacts: facts() }, G, roleId, {}));
    expect(r).toMatchObject({ status: 403, code, field: 'role_id' });
    expect(r.message).toMatch(message);
  });

  it('refuses every role when the bot lacks Manage Roles, naming that first', async () => {
    const r = await refusal(checkRoleForLink({ botFacts: facts(0n) }, G, 'plain', {}));
    expect(r).toMatchObject({ status: 403, code: 'role_no_manage_roles' });
    expect(r.message).toMatch(/lacks Manage Roles/);
  });

  it('refuses a role that is gone, and @everyone', async () => {
    await expect(refusal(checkRoleForLink({ botFacts: facts() }, G, 'gone', {}))).resolves.toMatchObject({
      status: 400,
      code: 'unknown_role',
    });
    await expect(refusal(checkRoleForLink({ botFacts: facts() }, G, G, {}))).resolves.toMatchObject({
      status: 400,
      code: 'unknown_role',
    });
  });

  it('refuses a privileged role without consent, with a wrong name, and from anyone but the owner', async () => {
    const none = await refusal(checkRoleForLink({ botFacts: facts() }, G, 'mods', {}));
    expect(none).toMatchObject({ status: 403, code: 'owner_consent_required', field: 'owner_consent' });
    expect(none.message).toBe(
      '"Mods" is a privileged role (it carries Manage Server): linking it needs the server owner\'s consent, typed as the role\'s name (no consent was given).',
    );
    await expect(
      refusal(checkRoleForLink({ botFacts: facts() }, G, 'mods', { ownerConsent: 'mods' })),
    ).resolves.toMatchObject({ code: 'owner_consent_required' });
    const admin = await refusal(
      checkRoleForLink({ botFacts: facts() }, G, 'admins', { ownerConsent: 'Admins', actingIsOwner: false }),
    );
    expect(admin).toMatchObject({ status: 403, code: 'owner_only' });
    expect(admin.message).toMatch(/only the server owner can link it/);
  });

  it('accepts a privileged role with the owner’s consent typed as its name', async () => {
    await expect(
      checkRoleForLink({ botFacts: facts() }, G, 'admins', { ownerConsent: ' Admins ', actingIsOwner: true }),
    ).resolves.toEqual({ name: 'Admins', privileged: ['Administrator'] });
  });
});
