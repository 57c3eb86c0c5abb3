import type { Command } from '../command';
import { guildCommands } from './guild';
import { linkCommands } from './link';

/** Every `rolelink` command, in the order `rolelink help` lists them. */
export const commands: Command[] = [...guildCommands, ...linkCommands];
