// The packed .d.ts as an ES module TypeScript plugin sees them (tsc --noEmit, module nodenext).
import {
  RoleLinkClient,
  RoleLinkApiError,
  configForm,
  section,
  fields as f,
  pluginMiddleware,
  MemoryTokenStore,
  verifyIframeToken,
  type ValuesOf,
  type ReplaceOutcome,
  type ErrorBody,
  type ListMeta,
  type SchemaResponse,
  type HealthReport,
} from '@rolelink/plugin-sdk';

const client = new RoleLinkClient({
  baseUrl: 'https://rolelink.example.com',
  token: 'rl_x',
  guildId: '1',
  roleId: '2',
});
export const outcome: Promise<ReplaceOutcome> = client.replaceUsers(['1', '2']);
export const exists: Promise<boolean> = client.hasUser('1');
// @ts-expect-error: the types are real, not any (a user ID is a string)
client.hasUser(1);

const form = configForm({
  name: 'Levels',
  sections: [section('Who', [f.select('region', 'Region', { options: [{ label: 'EU', value: 'eu' }] })])],
});
export const region: ValuesOf<typeof form>['region'] = 'eu';
// @ts-expect-error: the saved values' type is inferred from the form
export const wrongRegion: ValuesOf<typeof form>['region'] = 'us';

export function statusOf(err: unknown): number | null {
  return err instanceof RoleLinkApiError ? err.statusCode : null;
}
export const viewer: string = verifyIframeToken('t', { apiToken: 'rl_x', pluginUrl: 'https://p.example.com' }).sub;

// A fetch of one's own and the middleware's request and response, by their shapes (no Node types here).
export const custom = new RoleLinkClient({
  baseUrl: 'https://r.example.com',
  token: 'rl_x',
  guildId: '1',
  roleId: '2',
  fetch: () => Promise.resolve({ status: 200, headers: { get: () => null }, text: () => Promise.resolve('{}') }),
});
const middleware = pluginMiddleware({ store: new MemoryTokenStore(), getConfig: () => form.response() });
middleware(
  { method: 'GET', url: '/health', headers: {}, [Symbol.asyncIterator]: async function* () {} },
  { statusCode: 0, setHeader: () => undefined, end: () => undefined },
);

// The wire types travel inside the package (dist/wire-types), real and checked.
export const refusal: ErrorBody = {
  statusCode: 400,
  message: 'Validation error',
  details: ['body.0: must be a 17 to 20 digit snowflake'],
};
// @ts-expect-error: statusCode is a number
export const badRefusal: ErrorBody = { statusCode: '400', message: 'Validation error' };
export const synced: Promise<ListMeta['synced_count']> = client.listUsers().then((l) => l.meta.synced_count);
export const answer: SchemaResponse = form.response({ region: 'eu' });
export const health: HealthReport = { status: 'degraded', checks: { db: { status: 'down', message: 'timeout' } } };
