import type { DashboardGuild, LinkCard } from '@rolelink/contracts';
import { useOutletContext } from 'react-router';

/** What the link page hands its tabs: the ids, the card (kept fresh by its query) and whether the viewer owns the server. */
export type LinkContext = {
  guildId: string;
  roleId: string;
  card: LinkCard;
  guild: DashboardGuild | undefined;
  owner: boolean;
  roleName: string;
};

export function useLinkContext(): LinkContext {
  return useOutletContext<LinkContext>();
}
