import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Same rule as defineResource: the name is a URL segment and an ability prefix. */
const NAME = /^[a-z][a-z0-9_-]{0,62}$/;

export class MakeResourceError extends Error {}

/** The commented skeleton of a resource configuration named `name`. */
export function resourceSkeleton(name: string): string {
  const table = name.replace(/-/g, '_');
  return `import { Type } from '@sinclair/typebox';
import { defineResource } from 'citadel';

/**
 * The \`${name}\` resource, served at {apiBaseUrl}/{version}/${name}.
 *
 * To use it: create its table in a migration, then add it to the \`resources\` of your API
 * (\`createApi({ apiName, resources: [...] }).publish({ version: 'v1' })\`) in citadel.config.ts.
 */
export default defineResource({
  name: '${name}',
  // The table behind it (default: the name) and its key (default: id).
  table: '${table}',
  primaryKey: 'id',
  // Versions that publish it: a string, a list, or leave it out for every version.
  // version: ['v1'],

  // Every column a response may carry. readOnly: never taken from a payload; hidden: never sent.
  columns: {
    id: { type: 'integer', readOnly: true },
    title: { type: 'string', description: 'A short title.' },
    body: { type: 'text' },
    // timestamp: set by the engine from the clock ('created' on insert, 'updated' on every write).
    created_at: { type: 'datetime', readOnly: true, timestamp: 'created' },
  },

  // Keys sent as short strings (Sqids) instead of numbers; decoded on input.
  obfuscatedFields: ['id'],

  // Relations a client may embed with ?derive= and write nested (declare them in \`relations\`).
  // relations: {
  //   comments: { type: 'hasMany', resource: 'comments', foreignKey: '${table}_id' },
  //   owner: { type: 'belongsTo', table: 'users', foreignKey: 'owner_id', columns: ['id', 'username'] },
  // },
  // allowedRelations: ['comments'],

  // Page size: ?limit= above maxLimit is lowered to it.
  maxLimit: 100,
  defaultLimit: 20,
  // Fields for ?sort= (default: every column) and ?search= (default: the text columns).
  sortable: ['id', 'title', 'created_at'],
  searchable: ['title', 'body'],

  // Verbs that need a caller (a session, or a bearer token with the ability ${name}:create, ...).
  requiredAuth: ['post', 'put', 'patch', 'delete'],
  // Verbs served at all (default: every verb). A write verb also needs a validator below.
  exposedMethods: ['get', 'post', 'put', 'patch', 'delete'],

  // One TypeBox validator per write verb (or '*' for all); unknown fields are rejected.
  formClass: {
    post: Type.Object({
      title: Type.String({ minLength: 1, maxLength: 200 }),
      body: Type.String(),
    }),
    put: Type.Object({
      title: Type.String({ minLength: 1, maxLength: 200 }),
      body: Type.String(),
    }),
    patch: Type.Partial(
      Type.Object({
        title: Type.String({ minLength: 1, maxLength: 200 }),
        body: Type.String(),
      }),
    ),
  },

  // Lifecycle hooks; throw an HttpError (for example ForbiddenError) to refuse: the write rolls back.
  hooks: {
    // beforeQuery: (query, ctx) => query.where('owner_id', '=', ctx.user?.id ?? null),
    // afterQuery: (records) => records,
    // beforeSave: (data, ctx) => ({ ...data, owner_id: ctx.user?.id }),
    // afterSave: (record) => record,
  },
});
`;
}

/**
 * \`citadel make:resource <name> [--dir DIR]\`: writes DIR/<name>.resource.ts and never overwrites
 * an existing file. Returns the path written.
 */
export async function makeResource(
  name: string,
  dir: string,
  log: (line: string) => void = console.log,
): Promise<string> {
  if (!NAME.test(name)) {
    throw new MakeResourceError(
      `resource name "${name}" must start with a lower-case letter and hold only a-z, 0-9, - and _`,
    );
  }
  const folder = resolve(dir);
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${name}.resource.ts`);
  try {
    // 'wx': fails when the file exists, with no window between a check and the write.
    await writeFile(path, resourceSkeleton(name), { flag: 'wx' });
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST')
      throw new MakeResourceError(`${path} already exists; not overwriting it`);
    throw error;
  }
  log(`created ${path}`);
  return path;
}
