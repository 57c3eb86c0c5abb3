import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// The validator runs as its own process (as CI would run it): kubernetes-models is ESM-only.
const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);

async function validate(args: string[] = []): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/validate-manifests.ts', ...args],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

/** A copy of k8s/, docker-compose.yml, .env.example, the Dockerfile and .dockerignore in a temp dir, for breaking on purpose. */
function copyManifests(): {
  dir: string;
  k8s: string;
  compose: string;
  edit(file: string, from: string | RegExp, to: string): void;
} {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rolelink-manifests-'));
  cpSync(path.join(ROOT, 'k8s'), path.join(dir, 'k8s'), { recursive: true });
  cpSync(path.join(ROOT, 'docker-compose.yml'), path.join(dir, 'docker-compose.yml'));
  cpSync(path.join(ROOT, '.env.example'), path.join(dir, '.env.example'));
  cpSync(path.join(ROOT, 'Dockerfile'), path.join(dir, 'Dockerfile'));
  cpSync(path.join(ROOT, '.dockerignore'), path.join(dir, '.dockerignore'));
  return {
    dir,
    k8s: path.join(dir, 'k8s'),
    compose: path.join(dir, 'docker-compose.yml'),
    edit(file, from, to) {
      const p = path.join(dir, file);
      const before = readFileSync(p, 'utf8');
      const after = before.replace(from, to);
      if (after === before) throw new Error(`edit of ${file} changed nothing`);
      writeFileSync(p, after);
    },
  };
}

describe('deployment manifests', () => {
  let copy: ReturnType<typeof copyManifests>;
  beforeEach(() => {
    copy = copyManifests();
  });
  afterEach(() => rmSync(copy.dir, { recursive: true, force: true }));

  it('validate against the Kubernetes and Compose schemas and the service conventions', async () => {
    const { code, out } = await validate();
    expect(out).toMatch(/manifests valid: \d+ Kubernetes object/);
    // Every supported combination of k8s/components, under an overlay with another namespace (traps.ts COMBINATIONS).
    expect(out).toMatch(/overlays: \d+ combination\(s\) of components rendered|skipped: kubectl not found/);
    // kubectl (with its built-in kustomize) is on the machines this runs on; the validator says when it is not.
    expect(out).toMatch(/kubectl kustomize: \d+ rendered object\(s\) valid|skipped: kubectl not found/);
    // promtool (Debian's prometheus package) runs the alerts' unit tests; the validator says when it is absent.
    expect(out).toMatch(
      /promtool: \d+ rule\(s\) checked and unit-tested, \d+ dashboard quer\(ies\) parsed|skipped: (kubectl|promtool) not found/,
    );
    expect(code).toBe(0);
  }, 300_000);

  // One broken copy carrying every kind of mistake (one validator run keeps the test fast); each must be named.
  it('refuse runbook links that are relative, point to no section, or miss an overlay base', async () => {
    // The base made relative; one alert's anchor misspelt; the copy into the rules reaching one group only.
    copy.edit('k8s/monitoring/runbooks.yaml', 'baseUrl: https://rolelink.example.invalid/docs', 'baseUrl: docs');
    copy.edit(
      'k8s/monitoring/prometheus-rule.yaml',
      '/operations.md#rolelinkapierrors',
      '/operations.md#rolelink-api-errors',
    );
    copy.edit(
      'k8s/monitoring/components/runbooks/kustomization.yaml',
      'spec.groups.*.rules.*.annotations.runbook_url',
      'spec.groups.0.rules.*.annotations.runbook_url',
    );
    const { code, out } = await validate(['--k8s', copy.k8s, '--compose', copy.compose]);
    expect(code).toBe(1);
    expect(out).toContain('runbooks.yaml: data.baseUrl must be an absolute URL');
    expect(out).toContain('RoleLinkTargetDown: runbook_url docs/operations.md#rolelinktargetdown must be absolute');
    expect(out).toContain(
      "RoleLinkApiErrors: runbook_url's anchor #rolelink-api-errors is no heading of docs/operations.md",
    );
    expect(out).toMatch(
      /monitoring overlay PrometheusRule\/rolelink: runbook_url https:\/\/rolelink\.example\.invalid\/docs\/operations\.md#rolelinksynclagging is not on the overlay's baseUrl/,
    );
  }, 300_000);

  it('reject a broken copy and name every problem in it', async () => {
    // Kubernetes schema: a wrong type, a missing required field.
    copy.edit('k8s/api.yaml', 'containerPort: 3000', 'containerPort: "three thousand"');
    copy.edit(
      'k8s/dashboard.yaml',
      / {2}selector:\n {4}matchLabels:\n {6}app.kubernetes.io\/name: rolelink\n {6}app.kubernetes.io\/component: dashboard\n {2}strategy:/,
      '  strategy:',
    );
    // A field the Kubernetes API does not define.
    copy.edit('k8s/api.yaml', '      maxSurge: 1', '      maxSurge: 1\n      maxSurgee: 2');
    // Our conventions: readiness on /readyz, autoscaler targets, placeholder-only Secret.
    copy.edit('k8s/plugin-broker.yaml', 'path: /readyz', 'path: /');
    copy.edit(
      'k8s/bot-worker.yaml',
      /name: rolelink-bot-worker\n {2}minReplicas/,
      'name: rolelink-bot-wroker\n  minReplicas',
    );
    copy.edit('k8s/secret.example.yaml', '"REPLACE_ME_WITH_64_HEX_CHARACTERS"', `"${'ab'.repeat(32)}"`);
    // Compose schema: an unknown key, a misspelt condition; and Redis without AOF.
    copy.edit('docker-compose.yml', / {2}redis:\n {4}image:/, '  redis:\n    imgae: redis\n    image:');
    copy.edit('docker-compose.yml', 'condition: service_completed_successfully', 'condition: service_completed');
    copy.edit('docker-compose.yml', '"--appendonly", "yes"', '"--appendonly", "no"');
    copy.edit('docker-compose.yml', 'target: dashboard', 'target: dashbaord');
    // Health checks: one that starts Node again.
    copy.edit(
      'docker-compose.yml',
      /"bash",\n( +)"-c",\n( +)"exec 3<>\/dev\/tcp\/127\.0\.0\.1\/3001/,
      '"node",\n$1"-e",\n$2"exec 3<>/dev/tcp/127.0.0.1/3001',
    );
    // Network: the internet-facing API given the platform's egress; no default deny. Images: a tsx CMD.
    copy.edit(
      'k8s/network-policies.yaml',
      'values: ["bot-worker", "dashboard"]\n  policyTypes: ["Egress"]',
      'values: ["bot-worker", "dashboard", "api"]\n  policyTypes: ["Egress"]',
    );
    copy.edit(
      'k8s/network-policies.yaml',
      / {2}podSelector: \{\}\n {2}policyTypes: \["Ingress", "Egress"\]/,
      '  podSelector: {}\n  policyTypes: ["Ingress"]',
    );
    copy.edit('Dockerfile', 'CMD ["node", "dist/main.js"]', 'CMD ["node", "--import", "tsx", "src/main.ts"]');
    // Migrations: a Deployment without the wait-for-migrations gate; one whose gate runs another image than
    // the Job once kustomize has set the tags (the kustomization's images: entry does not match its name).
    copy.edit('k8s/plugin-broker.yaml', / {6}initContainers:\n[\s\S]*?(?= {6}containers:)/, '');
    copy.edit(
      'k8s/dashboard.yaml',
      'image: registry.example.invalid/rolelink/migrate:0.2.0',
      'image: registry.example.com/rolelink/migrate:0.2.0',
    );
    // Monitoring: an alert threshold its unit test does not expect, a dashboard query with a misspelt metric
    // and one that is not PromQL.
    copy.edit(
      'k8s/monitoring/prometheus-rule.yaml',
      'max(rolelink_sync_oldest_unapplied_seconds) > 3600',
      'max(rolelink_sync_oldest_unapplied_seconds) > 36000',
    );
    copy.edit(
      'k8s/monitoring/grafana-dashboard.json',
      '"max(rolelink_sync_links_behind)"',
      '"max(rolelink_sync_link_behind)"',
    );
    // No silent alerts: the sync lag's absent() rule watching another series instead.
    copy.edit(
      'k8s/monitoring/prometheus-rule.yaml',
      'expr: absent(rolelink_sync_oldest_unapplied_seconds)',
      'expr: absent(rolelink_sync_links_behind)',
    );
    copy.edit(
      'k8s/monitoring/grafana-dashboard.json',
      '"max(rolelink_sync_pending_changes)"',
      '"max(rolelink_sync_pending_changes"',
    );
    // Kubernetes traps: an image tag other than the product version, the namespace no longer named once by
    // the kustomization, DNS egress without NodeLocal DNSCache or without the DNS Service's ClusterIP, the
    // migrate Job's old 15-minute deadline, an alert that selects a namespace by name.
    copy.edit('k8s/bot-worker.yaml', 'rolelink/bot-worker:0.2.0', 'rolelink/bot-worker:0.1.0');
    copy.edit('k8s/network-policies.yaml', 'cidr: 10.96.0.10/32', 'cidr: 10.96.0.0/12');
    copy.edit(
      'k8s/monitoring/prometheus-rule.yaml',
      'expr: up{system="rolelink"} == 0',
      'expr: up{system="rolelink",namespace="rolelink"} == 0',
    );
    copy.edit('k8s/kustomization.yaml', /^namespace: rolelink\n/m, '');
    copy.edit('k8s/network-policies.yaml', '        - ipBlock:\n            cidr: 169.254.20.10/32\n', '');
    copy.edit('k8s/migrate-job.yaml', 'activeDeadlineSeconds: 14400', 'activeDeadlineSeconds: 900');
    // Ingress: a body limit at or below the API's (nginx's HTML 413), the reference page not routed.
    copy.edit('k8s/components/ingress-nginx/kustomization.yaml', 'proxy-body-size: "5m"', 'proxy-body-size: "4m"');
    copy.edit('k8s/ingress.yaml', '- path: /reference\n', '- path: /references\n');
    // Connections: the API's pool raised past what max_connections holds at the autoscaler's maximum.
    copy.edit('k8s/api.yaml', /name: DB_POOL_MAX\n( +)value: "6"/, 'name: DB_POOL_MAX\n$1value: "20"');
    // PgBouncer: fewer client slots than the services' pools at the autoscalers' maximum.
    copy.edit('k8s/components/pgbouncer/pgbouncer.yaml', 'max_client_conn = 400', 'max_client_conn = 100');
    // Scaling: no spread across zones.
    copy.edit('k8s/api.yaml', 'topologyKey: topology.kubernetes.io/zone', 'topologyKey: kubernetes.io/hostname');
    // The dashboard's /metrics published: "/" as a prefix on the Ingress, no match at all on an HTTPRoute.
    copy.edit('k8s/ingress.yaml', /- path: \/\n( +)pathType: Exact/, '- path: /\n$1pathType: Prefix');
    copy.edit(
      'k8s/components/gateway-api/http-routes.yaml',
      / {4}- matches:\n {8}- path: \{ type: Exact, value: \/ \}\n(?: {8}- path: .*\n)+ {6}(?=backendRefs:\n {8}- name: rolelink-dashboard)/,
      '    - ',
    );
    // A compose file in the build context made every edit of it rebuild the build stage.
    copy.edit('.dockerignore', /^docker-compose\*\.yml\n/m, '');
    // Compose for production: a port on every interface by default, no memory limit, logs never rotated.
    copy.edit('docker-compose.yml', '"${HTTPS_PORT:-127.0.0.1:443}:8443"', '"${HTTPS_PORT:-443}:8443"');
    copy.edit('docker-compose.yml', /(image: rolelink\/plugin-broker:local\n) +mem_limit: \S+\n/, '$1');
    copy.edit('docker-compose.yml', /(image: \$\{REDIS_IMAGE[^\n]*\n +restart: [^\n]*\n) +logging: \*logging\n/, '$1');

    const { code, out } = await validate(['--k8s', copy.k8s, '--compose', copy.compose]);
    expect(code).toBe(1);
    expect(out).toMatch(/api\.yaml Deployment\/rolelink-api: .*containerPort must be integer/);
    expect(out).toMatch(/Deployment\/rolelink-dashboard: .*must have required property selector/);
    expect(out).toMatch(
      /api\.yaml Deployment\/rolelink-api: unknown field at spec\.strategy\.rollingUpdate\.maxSurgee/,
    );
    expect(out).toContain('readinessProbe must GET /readyz');
    expect(out).toContain('scaleTargetRef names no Deployment (rolelink-bot-wroker)');
    expect(out).toContain('ROLELINK_SECRET_KEY looks like a real value');
    expect(out).toContain('must NOT have additional properties (imgae)');
    expect(out).toMatch(/depends_on.*must be equal to one of the allowed values/);
    expect(out).toContain('Redis needs --appendonly yes');
    expect(out).toMatch(
      /components\/pgbouncer max_client_conn: \d+ client connections to PgBouncer at the autoscalers' maximum .* exceed one replica's max_client_conn 100/,
    );
    expect(out).toContain('services.proxy.ports: ${HTTPS_PORT:-443}:8443: bind to 127.0.0.1 by default');
    expect(out).toContain('services.plugin-broker.mem_limit: every container needs a memory limit');
    expect(out).toContain('services.redis.logging: json-file with max-size and max-file (rotated logs)');
    expect(out).toContain('dashbaord is not a stage of the Dockerfile');
    expect(out).toContain('services.dashboard.healthcheck: must not start a Node process per check');
    expect(out).toMatch(/Deployment\/rolelink-api: NetworkPolicy\/platform-egress gives it egress outside the cluster/);
    expect(out).toContain('a default-deny NetworkPolicy (podSelector {}, Ingress and Egress, no rules) is required');
    expect(out).toContain('images run node dist/…, not TypeScript through tsx');
    expect(out).toContain(
      '.dockerignore: docker-compose.yml is in the build context: editing it would rebuild the build stage (COPY . .)',
    );
    expect(out).toMatch(
      /overlay \[ingress-nginx\] Ingress\/rolelink: nginx\.ingress\.kubernetes\.io\/proxy-body-size \(4m\) must exceed the API's body limit \(4mb\)/,
    );
    expect(out).toMatch(
      /kubectl kustomize\) Ingress\/rolelink dashboard\.rolelink\.example\.com: \/metrics is routed to rolelink-dashboard/,
    );
    expect(out).toMatch(
      /overlay \[gateway-api\] HTTPRoute\/rolelink-dashboard dashboard\.rolelink\.acme\.io: \/metrics is routed to rolelink-dashboard/,
    );
    expect(out).toContain('/reference/ is not routed to rolelink-api');
    expect(out).toContain(
      'plugin-broker.yaml Deployment/rolelink-plugin-broker: an init container running the migrate image\'s "wait" is required',
    );
    expect(out).toContain(
      'dashboard panel "Links behind": query names rolelink_sync_link_behind, which no service registers',
    );
    expect(out).toMatch(
      /RoleLinkSyncStalled: reads rolelink_sync_oldest_unapplied_seconds, which has no absent\(\) rule/,
    );
    expect(out).toMatch(
      /RoleLinkSyncLagging: reads rolelink_sync_oldest_unapplied_seconds, which has no absent\(\) rule/,
    );
    if (!out.includes('skipped: promtool not found')) {
      expect(out).toMatch(/alerts\.test\.yaml: promtool test rules: [\s\S]*alertname: RoleLinkSyncLagging/);
      expect(out).toContain('grafana-dashboard.json: a query is not valid PromQL');
    }
    expect(out).toMatch(
      /\(kubectl kustomize\) Deployment\/rolelink-dashboard: init container image registry\.example\.com\/rolelink\/migrate:0\.2\.0 is not the migrate Job's \(registry\.example\.invalid\/rolelink\/migrate:0\.2\.0\)/,
    );
    expect(out).toContain(
      'api.yaml Deployment/rolelink-api: topologySpreadConstraints must spread across topology.kubernetes.io/zone',
    );
    expect(out).toMatch(/\d+ PostgreSQL connections at the autoscalers' maximum \(.*Deployment\/rolelink-api 20×10/);
    // The Kubernetes traps.
    expect(out).toContain(
      'image registry.example.invalid/rolelink/bot-worker:0.1.0 must be registry.example.invalid/rolelink/<name>:0.2.0',
    );
    expect(out).toContain("DNS egress must admit the DNS Service's ClusterIP");
    expect(out).toContain('RoleLinkTargetDown: expression selects namespace="rolelink"');
    expect(out).toContain('DNS egress must admit NodeLocal DNSCache (ipBlock 169.254.20.10/32)');
    expect(out).toContain('activeDeadlineSeconds 900 would kill the wide-ID migration');
    expect(out).toContain(
      "namespace: must be set once here, so an overlay renames every object's namespace with one setting",
    );
  }, 300_000);
});
