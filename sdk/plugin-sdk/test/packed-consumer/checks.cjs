// What a plugin author does first with each part of the installed SDK, run by esm.mjs and cjs.cjs with
// the SDK loaded their way: a wrong export map, a name the ESM loader cannot see, or a runtime
// dependency missing from package.json fails here rather than in a plugin author's project.
const http = require('node:http');
const jwt = require('jsonwebtoken');

const API_TOKEN = 'rl_' + 'a'.repeat(40);
const PLUGIN_URL = 'https://plugin.example.com';
const LINK = { guild_id: '100000000000000001', role_id: '200000000000000002' };

function iframeToken(sdk) {
  const claims = { iss: sdk.IFRAME_TOKEN_ISSUER, aud: PLUGIN_URL, sub: '300000000000000003', ...LINK };
  const token = jwt.sign(claims, API_TOKEN, { algorithm: 'HS256', expiresIn: 300 });
  const verified = sdk.verifyIframeToken(token, { apiToken: API_TOKEN, pluginUrl: PLUGIN_URL });
  if (verified.sub !== claims.sub || verified.guild_id !== LINK.guild_id)
    throw new Error('verifyIframeToken: wrong claims');
  const forged = jwt.sign(claims, 'rl_another_links_token', { algorithm: 'HS256', expiresIn: 300 });
  let refused = false;
  try {
    sdk.verifyIframeToken(forged, { apiToken: API_TOKEN, pluginUrl: PLUGIN_URL });
  } catch {
    refused = true;
  }
  if (!refused) throw new Error('verifyIframeToken accepted a token signed with another key');
}

async function serverHelpers(sdk) {
  const form = sdk.configForm({
    name: 'Level roles',
    sections: [sdk.section('Who qualifies', [sdk.fields.number('min_level', 'Minimum level', { default_value: 10 })])],
  });
  const handler = sdk.createPluginHandler({
    store: new sdk.MemoryTokenStore(),
    getConfig: () => form.response({ min_level: 5 }),
  });
  const auth = { authorization: `Token ${API_TOKEN}` };
  const registered = await handler.handle({ method: 'POST', path: '/register', headers: auth, body: LINK });
  if (registered?.status !== 200) throw new Error(`POST /register answered ${registered?.status}`);
  const config = await handler.handle({ method: 'GET', path: '/config', headers: auth, body: undefined });
  if (config?.status !== 200 || !JSON.stringify(config.body).includes('min_level'))
    throw new Error('GET /config did not answer the form');
  const anonymous = await handler.handle({ method: 'GET', path: '/config', headers: {}, body: undefined });
  if (anonymous?.status !== 401) throw new Error(`GET /config without a token answered ${anonymous?.status}`);
  if (
    typeof sdk.pluginMiddleware({ store: new sdk.MemoryTokenStore(), getConfig: () => form.response() }) !== 'function'
  )
    throw new Error('pluginMiddleware is not a middleware');
  const csp = sdk.embedPageHeaders(['https://dashboard.example.com'])['Content-Security-Policy'];
  if (!csp?.includes('frame-ancestors https://dashboard.example.com')) throw new Error(`embedPageHeaders: ${csp}`);
}

/** The client against a stand-in API: an answer, and an error that must be the package's own class. */
async function client(sdk) {
  const server = http.createServer((req, res) => {
    const ok = req.headers.authorization === `Token ${API_TOKEN}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { data: { exists: true } } : { statusCode: 401, message: 'Invalid token' }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${server.address().port}`;
  const link = { guildId: LINK.guild_id, roleId: LINK.role_id };
  try {
    if ((await new sdk.RoleLinkClient({ baseUrl, token: API_TOKEN, ...link }).hasUser('100000000000000001')) !== true)
      throw new Error('hasUser: wrong answer');
    const refused = await new sdk.RoleLinkClient({ baseUrl, token: 'rl_wrong', ...link })
      .hasUser('100000000000000001')
      .catch((err) => err);
    if (!(refused instanceof sdk.RoleLinkApiError) || refused.statusCode !== 401)
      throw new Error(`hasUser with a wrong token: ${refused}`);
    // Refused before sending (a padded id is another string for the same number), as the service would.
    const padded = await new sdk.RoleLinkClient({ baseUrl, token: API_TOKEN, ...link })
      .hasUser('0100000000000000001')
      .catch((err) => err);
    if (!(padded instanceof sdk.RoleLinkApiError) || padded.statusCode !== 400)
      throw new Error(`hasUser of a padded id: ${padded}`);
  } finally {
    server.close();
  }
}

module.exports = async function check(sdk) {
  iframeToken(sdk);
  await serverHelpers(sdk);
  await client(sdk);
};
