import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import { FILTER_OPERATORS } from '../../src/api/request/filters.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import type { ApiConfig } from '../../src/api/resource/types.ts';
import type { CitadelMigration } from '../../src/index.ts';
import { testDialect } from '../support/databases.ts';
import { specimenApi, specimenMigrations } from './fixtures/specimens.ts';
import { publicId, startApiApp, type ApiApp } from '../support/api-app.ts';
import { OpenApiResponseChecker } from './support/openapi-responses.ts';
import { blogPlugins } from '../../examples/blog/citadel.config.ts';
import type { TestClient } from '../support/client.ts';

interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema?: { type?: string; pattern?: string; enum?: string[]; format?: string; minimum?: number };
}

/** The alternatives of a documented list pattern `^(a|b)(,(a|b))*$`. */
function alternatives(pattern: string): string[] {
  const match = /^\^\(([^)]*)\)/.exec(pattern);
  return match ? match[1]!.split('|').map((item) => item.replace(/\\(.)/g, '$1')) : [];
}

/** A value the schema of a documented parameter accepts. */
function sample(t: ApiApp, parameter: Parameter): string {
  const schema = parameter.schema ?? {};
  if (parameter.description?.includes('obfuscated') || parameter.name.startsWith('filter[post_id]'))
    return publicId(t, 1);
  const one = (() => {
    if (schema.enum) return schema.enum[0]!;
    if (schema.type === 'integer') return '1';
    if (schema.type === 'number') return '1.5';
    if (schema.format === 'date') return '2026-01-01';
    if (schema.format === 'date-time') return '2026-01-01T00:00:00.000Z';
    if (schema.pattern?.includes('\\.')) return '1.5';
    if (schema.pattern) return '1';
    return 'x';
  })();
  return /\]\[n?in\]$/.test(parameter.name) ? `${one},${one}` : one;
}

const cases: [string, ApiConfig, CitadelMigration[]][] = [
  ['the demo blog', blogApi, blogMigrations],
  ['the every-type fixture', specimenApi, specimenMigrations],
];

describe(`the OpenAPI document and the engine agree on ${testDialect()}`, () => {
  for (const [what, api, migrations] of cases) {
    describe(what, () => {
      let t: ApiApp;
      let client: TestClient;
      beforeAll(async () => {
        t = await startApiApp(api, migrations, { plugins: blogPlugins });
        // Signed in: a resource may require a caller for reads (the demo's my_posts), and
        // tenant-scoped resources (the demo's projects) are read by a member of an organization.
        client = await t.signIn(await t.createUser());
        if (api.resources.some((resource) => resource.tenant)) {
          expect((await client.post('/organizations', { name: 'Readers' })).status).toBe(201);
        }
      });
      afterAll(async () => t?.close());

      for (const { version } of api.publications) {
        it(`${version}: every documented parameter value is accepted, every other one refused`, async () => {
          const document = structuredClone(buildOpenApiDocument(api, version)) as unknown as {
            paths: Record<string, { get?: { parameters?: Parameter[] } }>;
          };
          let accepted = 0;
          let refused = 0;
          const expectStatus = async (url: string, status: number) => {
            const response = await client.get(`/api${`/${version}`}${url}`);
            expect(response.status, `${url}: ${response.text.slice(0, 200)}`).toBe(status);
            if (status === 200) accepted += 1;
            else refused += 1;
          };
          for (const resource of api.resources) {
            const list = document.paths[`/${resource.name}`]?.get;
            if (!list) continue;
            const documented = new Map((list.parameters ?? []).map((p) => [p.name, p]));
            for (const parameter of documented.values()) {
              if (parameter.name === 'filter') continue; // the JSON form: checked in filters.test.ts
              if (parameter.name === 'cursor') continue; // only issued cursors: checked in cursor.test.ts
              // fields[relation] goes with derive=relation.
              const relationFields = /^fields\[(.+)\]$/.exec(parameter.name);
              // A list takes values as its field's `eq` does.
              const list = /^(filter\[[^\]]+\])\[n?in\]$/.exec(parameter.name);
              const values =
                parameter.name === 'sort' ||
                parameter.name === 'derive' ||
                parameter.name.startsWith('fields')
                  ? alternatives(parameter.schema!.pattern!)
                  : list
                    ? [sample(t, { ...documented.get(`${list[1]}[eq]`)!, name: parameter.name })]
                    : [sample(t, parameter)];
              const derive = relationFields ? `&derive=${relationFields[1]}` : '';
              for (const value of values)
                await expectStatus(
                  `/${resource.name}?${parameter.name}=${encodeURIComponent(value)}${derive}`,
                  200,
                );
            }
            // Undocumented: every column and operator the document leaves out, and unknown names.
            const sortable = new Set(alternatives(documented.get('sort')?.schema?.pattern ?? '^()'));
            for (const column of Object.keys(resource.columns)) {
              if (!sortable.has(column)) await expectStatus(`/${resource.name}?sort=${column}`, 400);
              if (!documented.has(column)) await expectStatus(`/${resource.name}?${column}=1`, 400);
              for (const op of [...FILTER_OPERATORS, 'like']) {
                const name = `filter[${column}][${op}]`;
                if (!documented.has(name)) await expectStatus(`/${resource.name}?${name}=1`, 400);
              }
            }
            const derivable = new Set(alternatives(documented.get('derive')?.schema?.pattern ?? '^()'));
            for (const name of [...Object.keys(resource.relations ?? {}), 'nothing']) {
              if (!derivable.has(name)) await expectStatus(`/${resource.name}?derive=${name}`, 400);
            }
            const deepest = [...derivable].sort((a, b) => b.split('.').length - a.split('.').length)[0];
            if (deepest) await expectStatus(`/${resource.name}?derive=${deepest}.${deepest}`, 400);
            await expectStatus(`/${resource.name}?unknown=1`, 400);
            const fieldNames = new Set(alternatives(documented.get('fields')!.schema!.pattern!));
            for (const column of [...Object.keys(resource.columns), 'nothing']) {
              if (!fieldNames.has(column)) await expectStatus(`/${resource.name}?fields=${column}`, 400);
            }
            await expectStatus(`/${resource.name}?count=some`, 400);
            await expectStatus(`/${resource.name}?cursor=x`, 400);
            await expectStatus(`/${resource.name}?fields[nothing]=id`, 400);
            await expectStatus(`/${resource.name}?sort=${encodeURIComponent(' id')}`, 400);
          }
          expect(accepted).toBeGreaterThan(10);
          expect(refused).toBeGreaterThan(10);
        });
      }
    });
  }
});

describe('the response checker', () => {
  it('reports a body that does not match and a status that is not documented', () => {
    const checker = new OpenApiResponseChecker(specimenApi);
    const json = 'application/json; charset=utf-8';
    checker.check('GET', '/api/v1/specimens/1', 200, json, '{"status":"success","data":{"id":1,"flag":1}}');
    checker.check('GET', '/api/v1/specimens/1', 200, json, '{"status":"success","data":{"id":1,"big":12}}');
    checker.check('GET', '/api/v1/specimens', 418, 'application/problem+json', '{"title":"x"}');
    checker.check('DELETE', '/api/v1/specimens/1', 201, json, '{}');
    // Each one against the 3.0.3 and the 3.1.0 document.
    expect(checker.violations.filter((v) => v.includes('(v1_3.0)'))).toHaveLength(4);
    expect(checker.violations.filter((v) => v.includes('(v1_3.1)'))).toHaveLength(4);
    expect(checker.violations).toHaveLength(8);
    checker.check(
      'GET',
      '/api/v1/specimens/1',
      200,
      json,
      '{"status":"success","data":{"id":1,"flag":true}}',
    );
    expect(checker.violations).toHaveLength(8);
  });
});
