import { setPlan } from '@rolelink/admin';
import type { Command } from '../command';

export const guildCommands: Command[] = [
  {
    words: ['guild', 'set-plan'],
    args: ['guildId'],
    options: {
      plan: { type: 'string', description: 'free or premium' },
      slots: { type: 'string', description: 'paid integration slots (free plan: 2 + slots)' },
      owner: { type: 'string', description: "the guild owner's user id" },
    },
    summary: "Set a guild's plan and paid slots; links beyond the allowance pause, links back within it resume",
    run: (ctx, a, f) =>
      setPlan(ctx.admin(), {
        guildId: a.guildId!,
        plan: String(f.plan ?? ''),
        slots: f.slots === undefined ? undefined : Number(f.slots),
        ownerId: f.owner === undefined ? undefined : String(f.owner),
      }),
  },
];
