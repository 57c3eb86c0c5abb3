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

export function LinkStateBadge({ state }: { state: LinkView['state'] }) {
  if (state === 'paused') return <Badge tone="warning">Integration paused</Badge>;
  if (state === 'disabled') return <Badge tone="danger">Disabled</Badge>;
  return <Badge tone="success">Active</Badge>;
}

export function PlanBadge({ plan }: { plan: string }) {
  // a PlanName, or a plan this build does not know
  return (
    <Badge tone={plan === 'premium' ? 'accent' : 'neutral'}>
      {plan === 'premium' ? 'Premium' : plan === 'free' ? 'Free plan' : plan}
    </Badge>
  );
}
