import type { Command } from '../command';
import { auditCommands } from './audit';
import { configCommands } from './config';
import { doctorCommands } from './doctor';
import { guildCommands } from './guild';
import { healthCommands } from './health';
import { iframeCommands } from './iframe';
import { linkCommands } from './link';
import { pluginCommands } from './plugin';
import { secretsCommands } from './secrets';
import { triggerCommands } from './trigger';

/** Every `rolelink` command, in the order `rolelink help` lists them. */
export const commands: Command[] = [
  ...guildCommands,
  ...linkCommands,
  ...configCommands,
  ...iframeCommands,
  ...healthCommands,
  ...pluginCommands,
  ...triggerCommands,
  ...auditCommands,
  ...doctorCommands,
  ...secretsCommands,
];
