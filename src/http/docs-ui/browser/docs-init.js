/* global window, document, MutationObserver */
// Starts Swagger UI on the docs page. Served as a file because the CSP forbids inline scripts;
// the document URL comes from the page (data-url), never from the query string.
(function () {
  'use strict';
  var root = document.getElementById('swagger-ui');
  if (!root || typeof window.SwaggerUIBundle !== 'function') return;

  // Swagger UI's markup, mended where it falls short of the other pages' accessibility: the server
  // select gets its visible title as its name, operation groups are level-2 headings under the page's
  // h1, and the parts outside Swagger UI's <main> are labelled regions. Attributes only: React keeps the nodes, and re-rendered ones are mended again.
  function label(nodes, attribute, value) {
    for (var i = 0; i < nodes.length; i += 1) nodes[i].setAttribute(attribute, value(nodes[i]));
  }
  function mend() {
    var select = root.querySelector('select#servers');
    var title = root.querySelector('.servers-title');
    if (select && title && !select.hasAttribute('aria-labelledby')) {
      title.id = 'servers-title';
      select.setAttribute('aria-labelledby', 'servers-title');
    }
    var headings = root.querySelectorAll(
      'h3.opblock-tag:not([aria-level]), section.models > h4:not([aria-level])',
    );
    for (var i = 0; i < headings.length; i += 1) headings[i].setAttribute('aria-level', '2');
    label(root.querySelectorAll('.opblock h4:not([aria-level])'), 'aria-level', function () {
      return '3';
    });
    label(root.querySelectorAll('.opblock h5:not([aria-level])'), 'aria-level', function () {
      return '4';
    });
    // Parameter controls are named after their parameter; the request body editor after itself.
    label(
      root.querySelectorAll('tr[data-param-name] :is(select, input, textarea):not([aria-label])'),
      'aria-label',
      function (control) {
        var name = control.closest('tr').getAttribute('data-param-name');
        return control.closest('.examples-select') ? 'Examples of ' + name : name;
      },
    );
    label(root.querySelectorAll('.body-param textarea:not([aria-label])'), 'aria-label', function () {
      return 'Request body';
    });
    label(root.querySelectorAll('.examples-select-element:not([aria-label])'), 'aria-label', function () {
      return 'Examples';
    });
    label(root.querySelectorAll('.content-type:not([aria-label])'), 'aria-label', function () {
      return 'Media type';
    });
    // Scrolling code samples take the keyboard focus, so they can be scrolled without a mouse.
    label(
      root.querySelectorAll('.highlight-code > pre:not([tabindex]), pre.curl:not([tabindex])'),
      'tabindex',
      function () {
        return '0';
      },
    );
    // Every part of the page inside a landmark: the title block and the servers bar are regions.
    var parts = [
      ['.information-container:not([role])', 'About this API'],
      ['.scheme-container:not([role])', 'Servers and authorization'],
    ];
    for (var j = 0; j < parts.length; j += 1) {
      var part = root.querySelector(parts[j][0]);
      if (part) {
        part.setAttribute('role', 'region');
        part.setAttribute('aria-label', parts[j][1]);
      }
    }
  }
  new MutationObserver(mend).observe(root, { childList: true, subtree: true });

  window.ui = window.SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    domNode: root,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // Off: deep links put a link inside each operation's toggle button (a control in a control).
    deepLinking: false,
    // No calls to validator.swagger.io, no ?url= / ?configUrl= overrides from the address bar.
    validatorUrl: null,
    queryConfigEnabled: false,
    displayRequestDuration: true,
    persistAuthorization: false,
  });
})();
