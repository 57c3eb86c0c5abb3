import { ADMINISTRATOR, MANAGE_GUILD, lostManagePermission } from './permissions';

const SEND = 0x800n;

describe('lostManagePermission', () => {
  it('names Administrator when the role is the member’s only source of it', () => {
    expect(lostManagePermission(ADMINISTRATOR, SEND)).toBe('Administrator');
    expect(lostManagePermission(ADMINISTRATOR | SEND, MANAGE_GUILD)).toBe('Administrator');
  });

  it('names Manage Server when no other role gives Manage Server or Administrator', () => {
    expect(lostManagePermission(MANAGE_GUILD, SEND)).toBe('Manage Server');
    expect(lostManagePermission(MANAGE_GUILD, 0n)).toBe('Manage Server');
  });

  it('is null when another role keeps the permission, or the role never gave it', () => {
    expect(lostManagePermission(MANAGE_GUILD, MANAGE_GUILD)).toBeNull();
    expect(lostManagePermission(MANAGE_GUILD, ADMINISTRATOR)).toBeNull();
    expect(lostManagePermission(ADMINISTRATOR, ADMINISTRATOR)).toBeNull();
    expect(lostManagePermission(SEND, 0n)).toBeNull();
  });
});
