// Dialect-independent: OpenAPI documents built from declarations; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import { blogApi } from '../../examples/blog/api.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import { lintOpenApi } from '../support/redocly.ts';

/** Redocly CLI's `lint` (recommended ruleset, redocly.yaml) on the demo's documents, 3.0.3 and 3.1.0. */
describe('Redocly lint of the demo documents (recommended ruleset, redocly.yaml)', () => {
  for (const version of ['v1', 'v2']) {
    for (const openapi of ['3.0', '3.1'] as const) {
      it(`${version} as OpenAPI ${openapi}: no error, no warning`, { timeout: 60_000 }, async () => {
        const result = await lintOpenApi(buildOpenApiDocument(blogApi, version, { openapi }));
        expect(result.problems).toEqual([]);
        expect(result.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
        expect(result.version).toBe('2.77.0');
      });
    }
  }
});
