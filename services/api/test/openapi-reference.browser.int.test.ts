import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openBrowser, type TestBrowser } from '../../../test/dashboard/browser';
import { startApiHarness, type ApiHarness } from '../../../test/support/api';

/**
 * The reference page in a real browser, under the CSP the API sends: it must render every operation and break
 * no policy, also when opened as /reference/.
 */
let h: ApiHarness;
let server: http.Server;
let b: TestBrowser;
beforeAll(async () => {
  h = await startApiHarness();
  server = http.createServer(h.serverOptions, h.app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  b = await openBrowser();
});
afterAll(async () => {
  await b.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

describe('the API reference page', () => {
  it("renders the document's operations from local assets without a Content-Security-Policy violation", async () => {
    const violations: string[] = [];
    const outside: string[] = [];
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    b.page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    // The browser's own report of each blocked load or inline use, collected in the page.
    await b.page.addInitScript({
      content:
        "window.cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));",
    });
    b.page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    // With the trailing slash, as a browser may send it: the API redirects to /reference (the page was blank there).
    await b.page.goto(`${origin}/reference/`);
    expect(new URL(b.page.url()).pathname).toBe('/reference');
    await b.page
      .getByText('/api/role-link/{guildId}/{roleId}/users/upload/{uploadId}/commit')
      .first()
      .waitFor({ timeout: 20_000 });
    // One block per operation of the document: its paths' and its webhooks' (the calls the service makes on a plugin).
    const doc = (await (await fetch(`${origin}/openapi.json`)).json()) as Record<string, Record<string, object>>;
    const operations = [...Object.values(doc.paths ?? {}), ...Object.values(doc.webhooks ?? {})].flatMap((item) =>
      Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k)),
    );
    expect(operations.length).toBeGreaterThan(9);
    expect(await b.page.locator('.opblock').count()).toBe(operations.length);
    violations.push(...(await b.page.evaluate<string[]>('window.cspViolations')));
    expect(violations).toEqual([]);
    expect(outside).toEqual([]);
  });
});
