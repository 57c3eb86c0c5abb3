import type { DashboardGuildSummary } from '@rolelink/contracts';
import { Badge, BadgeRow } from './Badge';
import { PlanBadge } from './status-badges';

/** Plan, slots used/allowed and the owner badge, as a guild's header shows them. */
export function SlotsSummary({ guild }: { guild: DashboardGuildSummary }) {
  const { used, allowed } = guild.slots;
  const over = used > allowed;
  return (
    <BadgeRow>
      <PlanBadge plan={guild.plan} />
      <Badge
        tone={over ? 'warning' : used === allowed ? 'info' : 'neutral'}
        title="Role links use the server's integration slots"
      >
        {used} of {allowed} slots used
      </Badge>
      {guild.owner ? <Badge tone="accent">Owner</Badge> : null}
    </BadgeRow>
  );
}
