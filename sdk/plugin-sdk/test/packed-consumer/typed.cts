// The packed .d.ts as a CommonJS TypeScript plugin sees them (tsc --noEmit, module nodenext).
import sdk = require('@rolelink/plugin-sdk');

const handler: sdk.PluginHandler = sdk.createPluginHandler({
  store: new sdk.MemoryTokenStore(),
  getConfig: () => sdk.iframeResponse({ name: 'Levels', embedUrl: 'https://p.example.com/embed' }),
});
export const answer: Promise<sdk.PluginResponse | null> = handler.handle({
  method: 'GET',
  path: '/health',
  headers: {},
  body: undefined,
});
export const headers: Record<string, string> = sdk.embedPageHeaders(['https://dashboard.example.com']);
// @ts-expect-error: RoleLinkClient needs a token
new sdk.RoleLinkClient({ baseUrl: 'https://rolelink.example.com', guildId: '1', roleId: '2' });
