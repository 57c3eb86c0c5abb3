// Starts Swagger UI on the document this API serves. A file, not an inline script, so the page's
// Content-Security-Policy can allow scripts from this origin only.
'use strict';
window.addEventListener('DOMContentLoaded', function () {
  window.SwaggerUIBundle({
    url: new URL('openapi.json', location.href).toString(),
    dom_id: '#reference',
    deepLinking: true,
    tryItOutEnabled: false,
    // Swagger UI's default validator badge calls validator.swagger.io; nothing leaves this origin.
    validatorUrl: null,
  });
});
