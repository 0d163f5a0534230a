import { html, type SafeHtml } from '../../core/html.ts';

export interface DocsPageOptions {
  title: string;
  version: string;
  /** Absolute path of this version's OpenAPI JSON. */
  documentUrl: string;
  /** Absolute path prefix of the locally served assets (ends without a slash). */
  assetsUrl: string;
}

/** The interactive documentation page: markup only, the initialiser is a served script. */
export function docsPage(options: DocsPageOptions): SafeHtml {
  const { title, version, documentUrl, assetsUrl } = options;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} ${version}: API documentation</title>
        <link rel="stylesheet" href="${assetsUrl}/swagger-ui.css" />
        <link rel="stylesheet" href="${assetsUrl}/docs-theme.css" />
        <link rel="icon" type="image/png" href="${assetsUrl}/favicon-32x32.png" sizes="32x32" />
        <link rel="icon" type="image/png" href="${assetsUrl}/favicon-16x16.png" sizes="16x16" />
      </head>
      <body>
        <noscript
          >This page needs JavaScript. The OpenAPI document itself is at
          <a href="${documentUrl}">${documentUrl}</a>.</noscript
        >
        <div id="swagger-ui" data-url="${documentUrl}"></div>
        <script src="${assetsUrl}/swagger-ui-bundle.js"></script>
        <script src="${assetsUrl}/docs-init.js"></script>
      </body>
    </html> `;
}
