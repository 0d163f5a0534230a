import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blogApi } from '../../examples/blog/api.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import type { OpenApiVersion } from '../../src/core/openapi.ts';
import type { TestClient } from '../support/client.ts';
import { insertComments, insertPosts, publicId, startBlogApp, type BlogApp } from '../support/api-app.ts';
import { jsonSchemaDocument } from '../support/openapi-json-schema.ts';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** Generated requests per write operation (OPENAPI_REQUEST_RUNS to change it). */
const RUNS = Number(process.env.OPENAPI_REQUEST_RUNS ?? 120);
const VERSIONS: OpenApiVersion[] = ['3.0', '3.1'];

/**
 * The 422 reasons of rules a request schema cannot state, each named (anything else the engine
 * refuses with 422 while the document accepts it fails the test):
 * - rules on the database's state: a `post_id` or `post: {id}` naming a post that does not exist
 *   or that the caller cannot see (the comments hook, write.ts existingParent), a child `id` in a
 *   relation array that is not a child of this record (update.ts);
 * - a key that fits the id pattern (the alphabet's characters, the lengths) but is not the
 *   canonical Sqids encoding of one number from 0 to 2^31 - 1: which strings are depends on the
 *   order of the alphabet, shuffled by the deployment's secret, which the document must not give
 *   away;
 * - the same child key twice in one relation array (JSON Schema's uniqueItems compares whole
 *   items, not one property of them).
 */
const NAMED_REASONS: Record<string, RegExp> = {
  'post not visible (database state)': /^is not a post you can see$|^does not refer to a posts record/,
  'not a child of this record (database state)': /^is not a child of this posts record/,
  'non-canonical id (secret alphabet order)': /^is not a valid id$/,
  'child key listed twice (cross-item rule)': /^is listed twice$/,
};

type Body = unknown;
interface Operation {
  name: string;
  version: 'v1' | 'v2';
  method: 'POST' | 'PUT' | 'PATCH';
  url: () => string;
  pointer: string;
  body: fc.Arbitrary<Body>;
}

describe('request bodies: the document accepts what the engine accepts, and nothing it refuses (422)', () => {
  let t: BlogApp;
  let session: TestClient;
  const ids = {
    ownPost: '', // published, the caller's: comments are added to it
    churnPost: '', // the caller's: PUT and PATCH /posts write it and its children
    comment: '', // a comment on ownPost: PATCH /comments writes it
    churnComment: '',
    othersDraft: '', // exists, invisible to the caller
    missing: '', // canonical, no such post
    huge: '', // the encoding of 2^40: larger than any integer column value, so not an id
  };

  beforeAll(async () => {
    t = await startBlogApp();
    const user = await t.createUser({ username: 'documented' });
    session = await t.signIn(user);
    const [own, churn] = await insertPosts(t, user, [{ status: 'published' }, { status: 'draft' }]);
    const [draft] = await insertPosts(t, await t.createUser(), [{ status: 'draft' }]);
    await insertComments(t, own!, 1);
    await insertComments(t, churn!, 2);
    const comments = (await t.db
      .selectFrom('comments')
      .select(['id', 'post_id'])
      .orderBy('id')
      .execute()) as {
      id: number;
      post_id: number;
    }[];
    Object.assign(ids, {
      ownPost: publicId(t, own!),
      churnPost: publicId(t, churn!),
      comment: publicId(t, comments.find((c) => c.post_id === own)!.id, 'comments'),
      churnComment: publicId(t, comments.find((c) => c.post_id === churn)!.id, 'comments'),
      othersDraft: publicId(t, draft!),
      missing: publicId(t, 987_654),
      huge: publicId(t, 2 ** 40),
    });
  });
  afterAll(async () => t?.close());

  // ---- generators -------------------------------------------------------------------------------

  /** Strings around the bounds [min, max], with U+0000 and other control characters now and then. */
  const text = (min: number, max: number) =>
    fc.oneof(
      // Mostly valid: most bodies then pass, and each boundary case is tried alone.
      { weight: 8, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, min + 30) }) },
      {
        weight: 1,
        arbitrary: fc.string({
          minLength: min,
          maxLength: Math.min(max, min + 30),
          unit: fc.constantFrom('a', 'é', '中', ' ', '\n'),
        }),
      },
      {
        weight: 3,
        arbitrary: fc
          .constantFrom(0, 1, min - 1, min, min + 1, max - 1, max, max + 1)
          .filter((n) => n >= 0)
          .chain((n) =>
            fc.oneof(
              fc.string({ minLength: n, maxLength: n, unit: 'grapheme-ascii' }),
              fc.string({ minLength: n, maxLength: n, unit: 'binary-ascii' }),
              // Letters outside ASCII, each one UTF-16 unit (see the note on astral characters below).
              fc.string({ minLength: n, maxLength: n, unit: fc.constantFrom('é', 'ß', 'Ж', '中', '\u00a0') }),
            ),
          ),
      },
      { weight: 1, arbitrary: fc.constantFrom('x\u0000y', '\u0000') },
    );
  const optional = <T>(arbitrary: fc.Arbitrary<T>, others: fc.Arbitrary<unknown> = fc.constant(undefined)) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 12, arbitrary },
      { weight: 1, arbitrary: others },
    );
  const wrongType = fc.constantFrom<unknown>(null, 42, true, [], {}, 'x');
  /** Keys: real ones, canonical keys of nothing, strings of the alphabet that are not keys, other strings. */
  const id = (...real: (() => string)[]) =>
    fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...real).map((get) => get()) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(
            () => ids.missing,
            () => ids.huge,
          )
          .map((get) => get()),
      },
      {
        weight: 1,
        arbitrary: fc.string({
          minLength: 8,
          maxLength: 10,
          unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom('', 'abc', 'abcdefghijk', 'abc-defgh', 'ABCDEFG\u0000', '12', 17, null),
      },
    );
  const extraField = fc.oneof(
    { weight: 20, arbitrary: fc.constant<[string, unknown][]>([]) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, unknown][]>(
        [['unknown', 1]],
        [['id', 'abcdefgh']],
        [['created_at', '2026-01-01T00:00:00Z']],
        [['author_id', 1]],
      ),
    },
  );
  const object = (fields: Record<string, fc.Arbitrary<unknown>>) =>
    fc.tuple(fc.record(fields), extraField).map(([record, extra]) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value;
      for (const [key, value] of extra) out[key] = value;
      return out;
    });

  const status = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('draft', 'published') },
    { weight: 1, arbitrary: fc.constantFrom<unknown>('Draft', '', null, 1) },
  );
  const tags = fc.oneof(
    { weight: 6, arbitrary: fc.array(text(1, 40), { maxLength: 4 }) },
    fc.array(text(1, 40), { maxLength: 21 }),
    fc.array(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 19, maxLength: 21 }),
    fc.constantFrom([''], [1], 'tag', null),
  );
  const commentFields = {
    author_name: optional(text(1, 100), wrongType),
    body: optional(text(1, 5000), wrongType),
  };
  const nestedComment = fc.oneof(
    { weight: 5, arbitrary: object(commentFields) },
    { weight: 1, arbitrary: object({ ...commentFields, post_id: id(() => ids.ownPost) }) },
    { weight: 1, arbitrary: wrongType },
  );
  const postFields = (required: boolean) => ({
    title: required
      ? fc.oneof(
          { weight: 6, arbitrary: text(3, 200) },
          { weight: 1, arbitrary: wrongType.map((v) => (v === null ? undefined : v)) },
        )
      : optional(text(3, 200), wrongType),
    body: required ? text(1, 300) : optional(text(1, 300), wrongType),
    status: optional(status),
    pinned: optional(fc.boolean(), fc.constantFrom<unknown>('true', 0, null)),
    tags: optional(tags),
  });
  const postCreate = object({
    ...postFields(true),
    comments: optional(fc.array(nestedComment, { maxLength: 3 }), wrongType),
  });
  // post_id, a post object, both or neither.
  const commentCreate = fc
    .tuple(
      object(commentFields),
      fc.constantFrom('post_id', 'post_id', 'post_id', 'post', 'post', 'both', 'neither'),
      id(
        () => ids.ownPost,
        () => ids.ownPost,
        () => ids.othersDraft,
      ),
      fc.oneof(
        {
          weight: 3,
          arbitrary: object({
            id: id(
              () => ids.ownPost,
              () => ids.othersDraft,
            ),
          }),
        },
        { weight: 3, arbitrary: postCreate },
        { weight: 1, arbitrary: wrongType },
      ),
    )
    .map(([fields, which, postId, post]) => ({
      ...fields,
      ...(which === 'post_id' || which === 'both' ? { post_id: postId } : {}),
      ...(which === 'post' || which === 'both' ? { post } : {}),
    }));
  const bulk = (item: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 4, arbitrary: item }, { weight: 1, arbitrary: fc.array(item, { maxLength: 3 }) });
  const childChange = fc.oneof(
    nestedComment,
    object({
      id: id(
        () => ids.churnComment,
        () => ids.comment,
      ),
      ...commentFields,
    }),
    object({
      id: id(
        () => ids.churnComment,
        () => ids.comment,
      ),
      _delete: fc.constantFrom<unknown>(true, true, false, 'yes'),
    }),
  );
  const postChanges = (required: boolean) =>
    object({
      ...postFields(required),
      status: required
        ? fc.oneof({ weight: 5, arbitrary: status }, { weight: 1, arbitrary: fc.constant(undefined) })
        : optional(status),
      comments: optional(fc.array(childChange, { maxLength: 3 }), wrongType),
    });

  const operations: Operation[] = [
    {
      name: 'POST /comments',
      version: 'v1',
      method: 'POST',
      url: () => '/api/v1/comments',
      pointer: '/paths/~1comments/post',
      body: bulk(commentCreate),
    },
    {
      name: 'PATCH /comments/{id}',
      version: 'v1',
      method: 'PATCH',
      url: () => `/api/v1/comments/${ids.comment}`,
      pointer: '/paths/~1comments~1{id}/patch',
      body: object(commentFields),
    },
    {
      name: 'POST /posts',
      version: 'v1',
      method: 'POST',
      url: () => '/api/v1/posts',
      pointer: '/paths/~1posts/post',
      body: bulk(postCreate),
    },
    {
      name: 'PUT /posts/{id}',
      version: 'v1',
      method: 'PUT',
      url: () => `/api/v1/posts/${ids.churnPost}`,
      pointer: '/paths/~1posts~1{id}/put',
      body: postChanges(true),
    },
    {
      name: 'PATCH /posts/{id}',
      version: 'v1',
      method: 'PATCH',
      url: () => `/api/v1/posts/${ids.churnPost}`,
      pointer: '/paths/~1posts~1{id}/patch',
      body: postChanges(false),
    },
    // v2 publishes posts only: its documents inline the comments relation (same engine rules).
    {
      name: 'v2 POST /posts',
      version: 'v2',
      method: 'POST',
      url: () => '/api/v2/posts',
      pointer: '/paths/~1posts/post',
      body: bulk(postCreate),
    },
    {
      name: 'v2 PATCH /posts/{id}',
      version: 'v2',
      method: 'PATCH',
      url: () => `/api/v2/posts/${ids.churnPost}`,
      pointer: '/paths/~1posts~1{id}/patch',
      body: postChanges(false),
    },
  ];

  // ---- the documents' request schemas ---------------------------------------------------------

  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  const key = (version: string, openapi: OpenApiVersion) => `doc-${version}-${openapi.replace('.', '-')}`;
  for (const version of ['v1', 'v2'])
    for (const openapi of VERSIONS) {
      const document = jsonSchemaDocument(
        structuredClone(buildOpenApiDocument(blogApi, version, { openapi })),
      );
      ajv.addSchema(document as object, key(version, openapi));
    }
  const schemaOf = (version: string, openapi: OpenApiVersion, pointer: string): ValidateFunction =>
    ajv.compile({
      $ref: `${key(version, openapi)}#${pointer
        .split('/')
        .map(encodeURIComponent)
        .join('/')}/requestBody/content/application~1json/schema`,
    });

  const totals = {
    requests: 0,
    engineAccepted: 0,
    documentAccepted: 0,
    agreed: 0,
    named: {} as Record<string, number>,
  };

  for (const operation of operations) {
    it(`${operation.name}: ${RUNS} generated bodies`, { timeout: 300_000 }, async () => {
      const validators = VERSIONS.map((openapi) => schemaOf(operation.version, openapi, operation.pointer));
      const disagreements: string[] = [];
      await fc.assert(
        fc.asyncProperty(operation.body, async (body) => {
          const [accepts30, accepts31] = validators.map((validate) => validate(body) === true);
          const response = await session.request(operation.method, operation.url(), 'json', body);
          totals.requests += 1;
          const where = () =>
            `${operation.name} ${JSON.stringify(body).slice(0, 400)} → ${response.status} ${response.text.slice(0, 300)}`;
          // The two versions of the document say the same.
          if (accepts30 !== accepts31) disagreements.push(`3.0 ${accepts30} / 3.1 ${accepts31}: ${where()}`);
          const accepted = response.status >= 200 && response.status < 300;
          if (accepted) totals.engineAccepted += 1;
          if (accepts31) totals.documentAccepted += 1;
          expect(response.status, where()).not.toBe(500);
          // The engine accepts ⇒ the document accepts.
          if (accepted && !accepts31) disagreements.push(`engine accepts, document refuses: ${where()}`);
          if (accepts31 && !accepted) {
            const reasons = ((response.body?.invalid_params ?? []) as { reason: string }[]).map(
              (p) => p.reason,
            );
            const named = reasons.map((reason) =>
              Object.keys(NAMED_REASONS).find((name) => NAMED_REASONS[name]!.test(reason)),
            );
            if (response.status === 422 && reasons.length > 0 && named.every(Boolean)) {
              for (const name of new Set(named)) totals.named[name!] = (totals.named[name!] ?? 0) + 1;
              return;
            }
            // The document accepts ⇒ the engine does not refuse it (422, or any other 4xx).
            disagreements.push(`document accepts, engine refuses: ${where()}`);
            return;
          }
          totals.agreed += 1;
        }),
        { numRuns: RUNS, seed: 3030 + operations.indexOf(operation) },
      );
      expect(disagreements).toEqual([]);
    });
  }

  it('refuses an id of a number beyond the integer columns (a PostgreSQL 500 before): 422, 404, 400', async () => {
    const comment = await session.post('/api/v1/comments', {
      post_id: ids.huge,
      author_name: 'A',
      body: 'B',
    });
    expect(comment.status).toBe(422);
    expect(comment.body.invalid_params).toEqual([{ name: 'post_id', reason: 'is not a valid id' }]);
    expect(
      (await session.post('/api/v1/comments', { post: { id: ids.huge }, author_name: 'A', body: 'B' }))
        .status,
    ).toBe(422);
    expect((await session.get(`/api/v1/posts/${ids.huge}`)).status).toBe(404);
    expect((await session.patch(`/api/v1/posts/${ids.huge}`, { title: 'Three' })).status).toBe(404);
    expect((await session.get(`/api/v1/comments?post_id=${ids.huge}`)).status).toBe(400);
  });

  it('reports the figures', () => {
    console.log(`OpenAPI request agreement: ${JSON.stringify(totals)}`);
    expect(totals.requests).toBe(RUNS * operations.length);
    expect(totals.engineAccepted).toBeGreaterThan(0);
    expect(totals.requests - totals.engineAccepted).toBeGreaterThan(0);
  });
});
