import { isPaused, slotAllowance } from './slots';

describe('slot allowance', () => {
  it('gives free guilds two slots plus their paid slots', () => {
    expect(slotAllowance('free', 0)).toBe(2);
    expect(slotAllowance('free', 3)).toBe(5);
  });

  it('gives premium guilds up to 210 slots', () => {
    expect(slotAllowance('premium', 0)).toBe(210);
    expect(slotAllowance('premium', 50)).toBe(210);
  });

  it('pauses the links beyond the allowance in creation order', () => {
    expect(isPaused(1, 'free', 0)).toBe(false);
    expect(isPaused(2, 'free', 0)).toBe(true);
    expect(isPaused(2, 'free', 1)).toBe(false);
    expect(isPaused(2, 'premium', 0)).toBe(false);
  });
});
