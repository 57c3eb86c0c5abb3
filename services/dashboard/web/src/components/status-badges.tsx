import type { LinkView, PluginHealthStatus } from '@rolelink/contracts';
import { Badge, type BadgeTone } from './Badge';

const HEALTH: Record<PluginHealthStatus | 'unknown', { tone: BadgeTone; text: string }> = {
  healthy: { tone: 'success', text: 'Healthy' },
  degraded: { tone: 'warning', text: 'Degraded' },
  unhealthy: { tone: 'danger', text: 'Unhealthy' },
  unreachable: { tone: 'danger', text: 'Unreachable' },
  unknown: { tone: 'neutral', text: 'Not polled yet' },
};

export function healthText(status: PluginHealthStatus | 'unknown'): string {
  return HEALTH[status].text;
}

export function HealthBadge({
  status,
  prefix = 'Plugin',
}: {
  status: PluginHealthStatus | 'unknown';
  prefix?: string;
}) {
  const h = HEALTH[status] ?? HEALTH.unknown;
  return <Badge tone={h.tone}>{prefix ? `${prefix}: ${h.text.toLowerCase()}` : h.text}</Badge>;
}

/** The link's state as the server derived it (docs/dashboard.md "A link's state"): green only when up to date or syncing. */
const STATE: Record<LinkView['state'], { tone: BadgeTone; text: string }> = {
  up_to_date: { tone: 'success', text: 'Up to date' },
  syncing: { tone: 'info', text: 'Syncing' },
  blocked: { tone: 'danger', text: 'Blocked' },
  held: { tone: 'warning', text: 'Removal held' },
  awaiting_first_list: { tone: 'neutral', text: 'Awaiting first list' },
  paused: { tone: 'warning', text: 'Integration paused' },
  disabled: { tone: 'danger', text: 'Disabled' },
};

export function LinkStateBadge({ state }: { state: LinkView['state'] }) {
  const s = STATE[state];
  return <Badge tone={s.tone}>{s.text}</Badge>;
}

export function PlanBadge({ plan }: { plan: string }) {
  // a PlanName, or a plan this build does not know
  return (
    <Badge tone={plan === 'premium' ? 'accent' : 'neutral'}>
      {plan === 'premium' ? 'Premium' : plan === 'free' ? 'Free plan' : plan}
    </Badge>
  );
}
