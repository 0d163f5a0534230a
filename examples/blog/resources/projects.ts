import { Type } from '@sinclair/typebox';
import { defineResource } from '../../../src/index.ts';

/**
 * Projects of an organization: tenant-scoped, so every read sees only the
 * active organization's projects and every write lands in it; each verb needs `projects:<verb>`
 * in the member's role (organizations plugin, examples/blog/citadel.config.ts).
 */
export const projects = defineResource({
  name: 'projects',
  version: 'v1',
  description: "The active organization's projects (tenant-scoped: organization_id is set by the server).",
  tenant: 'organization_id',
  columns: {
    id: { type: 'integer', readOnly: true },
    organization_id: {
      type: 'integer',
      readOnly: true,
      description: 'The organization (set by the server).',
    },
    name: { type: 'string' },
    description: { type: 'text', nullable: true },
    created_at: { type: 'datetime', readOnly: true, timestamp: 'created' },
  },
  // Like the blog's ids, never a guessable counter in URLs.
  obfuscatedFields: ['id'],
  // GET /api/v1/projects/live: the active organization's project changes as they commit.
  live: true,
  sortable: ['id', 'name', 'created_at'],
  searchable: ['name', 'description'],
  requiredAuth: ['get', 'post', 'put', 'patch', 'delete'],
  formClass: {
    post: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    }),
    put: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    }),
    patch: Type.Object({
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    }),
  },
});
