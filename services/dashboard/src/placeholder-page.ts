/** The page served until the dashboard issue lands: says what is coming and where the API lives. */
export function placeholderPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Role Link dashboard</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem; color: #1f2328; }
  code { background: #f0f0f0; padding: 0.1rem 0.3rem; border-radius: 3px; }
</style>
</head>
<body>
<h1>Role Link dashboard</h1>
<p>The dashboard is coming: creating and deleting role links, the plugin configuration form, held
removals, plans and plugin health will be managed here.</p>
<p>Until then, use the <code>rolelink</code> command (<code>pnpm rolelink --help</code>) and the User
Management API (see <code>docs/api.md</code>).</p>
<p>Operations: <a href="/healthz">/healthz</a> · <a href="/readyz">/readyz</a> · <a href="/metrics">/metrics</a></p>
</body>
</html>
`;
}
