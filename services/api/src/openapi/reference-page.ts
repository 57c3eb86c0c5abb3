/**
 * The reference page and its start-up script, as strings: the compiled build bundles JavaScript only,
 * so files beside the sources would be missing from it. No inline script: the page loads init.js, so
 * its Content-Security-Policy allows scripts from this origin only.
 */
export const REFERENCE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Role Link Service — User Management API reference</title>
<link rel="stylesheet" href="reference/swagger-ui.css">
<script src="reference/swagger-ui-bundle.js" defer></script>
<script src="reference/init.js" defer></script>
</head>
<body>
<div id="reference"></div>
</body>
</html>
`;

/** Starts Swagger UI on this API's document; its validator badge (a call to validator.swagger.io) is off. */
export const INIT_JS = `'use strict';
window.addEventListener('DOMContentLoaded', function () {
  window.SwaggerUIBundle({
    url: new URL('openapi.json', location.href).toString(),
    dom_id: '#reference',
    deepLinking: true,
    tryItOutEnabled: false,
    validatorUrl: null,
  });
});
`;
