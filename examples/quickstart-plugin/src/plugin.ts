import express, { type Express } from 'express';
import {
  configForm,
  fields,
  MemoryTokenStore,
  PluginError,
  pluginMiddleware,
  RoleLinkClient,
  section,
  type PluginEvent,
  type RegisteredLink,
  type ValuesOf,
} from '@rolelink/plugin-sdk';

// The walkthrough of docs/plugin-quickstart.md, whole: a form with one field, and the role's list
// replaced with that many demo members after registration and after every save.

const form = configForm({
  name: 'Quickstart plugin',
  description: 'Gives the role to the first N members of the demo guild.',
  sections: [
    section('Members', [
      fields.number('member_count', 'How many members hold the role', {
        default_value: 25,
        validation: { required: true, min: 0, max: 10_000 },
      }),
    ]),
  ],
});
type Settings = ValuesOf<typeof form>;

/** The emulator's demo members have consecutive IDs from this one. */
const FIRST_MEMBER = 100000000000000000n;
function* demoMembers(count: number): Generator<string> {
  for (let i = 0n; i < BigInt(count); i++) yield String(FIRST_MEMBER + i);
}

export type QuickstartOptions = { apiUrl: string; log?: (line: string) => void };

export function createQuickstartPlugin({ apiUrl, log = console.log }: QuickstartOptions): Express {
  const store = new MemoryTokenStore(); // a real plugin keeps tokens in its database
  const settings = new Map<string, Settings>();
  const keyOf = (link: RegisteredLink) => `${link.guildId}/${link.roleId}`;

  async function push(link: RegisteredLink): Promise<void> {
    const count = settings.get(keyOf(link))?.member_count ?? 25;
    const client = new RoleLinkClient({ baseUrl: apiUrl, ...link });
    const outcome = await client.replaceUsers(demoMembers(count));
    if (outcome.held)
      log(`${keyOf(link)}: held, ${outcome.held.message} (the server owner can apply it in the dashboard)`);
    else log(`${keyOf(link)}: ${outcome.userCount} members stored`);
  }
  const pushInBackground = (link: RegisteredLink) =>
    void push(link).catch((err: unknown) => log(`${keyOf(link)}: push failed: ${(err as Error).message}`));

  // Signed events (docs/plugin-quickstart.md "Events"): a handler per kind asks the service for it, and the
  // SDK verifies each POST /events before calling it. `./rolelink trigger <kind> …` makes each one happen.
  const logEvent = (e: PluginEvent, link: RegisteredLink) =>
    log(`${keyOf(link)}: event ${e.type} #${e.seq} ${JSON.stringify(e.data)}`);

  const app = express();
  app.use(express.json({ limit: '50kb' }));
  app.use(
    pluginMiddleware({
      store,
      onRegister: (link) => pushInBackground(link),
      getConfig: (link) => form.response(settings.get(keyOf(link)) ?? {}),
      saveConfig: (link, config) => {
        const count = config.member_count;
        if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > 10_000)
          throw new PluginError(400, 'member_count must be a whole number from 0 to 10000');
        settings.set(keyOf(link), { member_count: count });
        pushInBackground(link);
        return { ok: true, message: `Saved: ${count} members` };
      },
      onDelete: (link) => void settings.delete(keyOf(link)),
      events: {
        'member.not_in_guild': logEvent,
        'member.role_restored': logEvent,
        'member.expired': logEvent,
        'removal.held': logEvent,
        'removal.applied': logEvent,
        // The owner asks for the list again (it was not stored): push it, and within the window it goes through.
        'list.resend_requested': (e, link) => {
          logEvent(e, link);
          pushInBackground(link);
        },
        'link.paused': logEvent,
        'link.resumed': logEvent,
        'link.disabled': logEvent,
        'link.enabled': logEvent,
        'link.deleted': logEvent,
        'sync.first_completed': logEvent,
      },
    }),
  );
  return app;
}
