/* global window, document */
// Starts Swagger UI on the docs page. Served as a file because the CSP forbids inline scripts;
// the document URL comes from the page (data-url), never from the query string.
(function () {
  'use strict';
  var root = document.getElementById('swagger-ui');
  if (!root || typeof window.SwaggerUIBundle !== 'function') return;
  window.ui = window.SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    domNode: root,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    deepLinking: true,
    // No calls to validator.swagger.io, no ?url= / ?configUrl= overrides from the address bar.
    validatorUrl: null,
    queryConfigEnabled: false,
    displayRequestDuration: true,
    persistAuthorization: false,
  });
})();
