// An ES module plugin: named imports are linked statically, so each one the loader cannot find in the
// CommonJS build is a SyntaxError before anything runs.
import * as namespace from '@rolelink/plugin-sdk';
import {
  RoleLinkClient,
  RoleLinkApiError,
  verifyIframeToken,
  IFRAME_TOKEN_ISSUER,
  configForm,
  section,
  fields,
  createPluginHandler,
  pluginMiddleware,
  MemoryTokenStore,
  embedPageHeaders,
} from '@rolelink/plugin-sdk';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const check = require('./checks.cjs');
await check({
  RoleLinkClient,
  RoleLinkApiError,
  verifyIframeToken,
  IFRAME_TOKEN_ISSUER,
  configForm,
  section,
  fields,
  createPluginHandler,
  pluginMiddleware,
  MemoryTokenStore,
  embedPageHeaders,
});
// Every name the CommonJS build exports is importable, not only the ones listed above.
const missing = Object.keys(require('@rolelink/plugin-sdk')).filter(
  (name) => name !== '__esModule' && !(name in namespace),
);
if (missing.length) throw new Error(`not importable from ESM: ${missing.join(', ')}`);
console.log('esm ok');
