import type { CompiledRelation, CompiledResource } from '../resource/compile.ts';
import { MAX_BULK_ITEMS, MAX_NESTING_DEPTH } from '../write/write.ts';
import type { WriteVerb } from '../resource/types.ts';
import type { PayloadValidator } from '../resource/validation.ts';
import { typeSchema } from './column-schema.ts';
import { orNull, toOpenApiSchema, type OpenApiSchema } from './json-schema.ts';
import type { DocContext } from './names.ts';

/**
 * A string with no U+0000: the engine refuses the character anywhere in a payload
 * (src/api/request/nul.ts).
 */
export const NO_NUL = '^[^\\u0000]*$';

/** Every string of a payload schema refuses U+0000, as the engine does. */
function refuseNul(schema: OpenApiSchema): OpenApiSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const out: OpenApiSchema = {};
    for (const [key, value] of Object.entries(node)) {
      // Map keywords hold property names, not schemas' keywords: walk their values only.
      out[key] =
        key === 'properties' && typeof value === 'object' && value !== null
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]))
          : // Values, and `not` (a pattern inside it would widen what it refuses), stay as they are.
            key === 'enum' || key === 'const' || key === 'default' || key === 'examples' || key === 'not'
            ? value
            : walk(value);
    }
    const types = [out.type].flat();
    if (types.includes('string') && out.enum === undefined && out.const === undefined) {
      if (out.pattern === undefined) out.pattern = NO_NUL;
      else if (out.pattern !== NO_NUL) out.allOf = [...((out.allOf as unknown[]) ?? []), { pattern: NO_NUL }];
    }
    return out;
  };
  return walk(schema) as OpenApiSchema;
}

/**
 * The column's own type check (src/api/resource/column-types.ts), which the engine applies whatever the
 * validator says: added beside a property when it says more than the validator's schema.
 */
function columnConstraint(resource: CompiledResource, name: string, property: OpenApiSchema) {
  const column = resource.config.columns[name];
  if (!column || column.type === 'json' || resource.obfuscated.has(name)) return null;
  const { description: _description, ...constraint } = typeSchema(
    column.type,
    column.precision,
    column.scale,
  );
  // The property's types: its own, or those of its union's branches (`anyOf: [string, null]`).
  const branches = [property.anyOf, property.oneOf].find(Array.isArray) as OpenApiSchema[] | undefined;
  const types = (branches ?? [property]).flatMap((branch) => [branch.type].flat());
  const same = Object.entries(constraint).every(([key, value]) =>
    key === 'type'
      ? types.length > 0 && types.every((type) => type === value || type === 'null')
      : JSON.stringify(property[key]) === JSON.stringify(value),
  );
  if (same) return null;
  // null is checked by the validator (the column check skips it).
  return { ...constraint, type: [constraint.type as string, 'null'] };
}

/** A validator as the document shows it: obfuscated keys as strings, nested relations added. */
export function inputSchema(
  ctx: DocContext,
  resource: CompiledResource,
  validator: PayloadValidator,
  verb: WriteVerb,
  depth: number,
  fixedKey: string | null,
): OpenApiSchema {
  const schema = refuseNul(toOpenApiSchema(validator.closed));
  const properties = (schema.properties ?? {}) as Record<string, OpenApiSchema>;
  for (const [name, property] of Object.entries(properties)) {
    const constraint = columnConstraint(resource, name, property);
    if (constraint) property.allOf = [...((property.allOf as unknown[]) ?? []), constraint];
  }
  for (const field of resource.obfuscated) {
    const property = properties[field];
    if (!property) continue;
    const nullable =
      Array.isArray(property.anyOf) || (Array.isArray(property.type) && property.type.includes('null'));
    properties[field] = nullable ? orNull({ ...ctx.sqid }) : { ...ctx.sqid };
    if (typeof property.description === 'string')
      properties[field]!.description = `${property.description} ${String(ctx.sqid.description)}`;
  }
  if (verb === 'post') {
    // Children created with this record, validated by their own resource (foreign key from us).
    for (const name of resource.nestedWritable) {
      const relation = resource.relations.get(name)!;
      if (depth >= MAX_NESTING_DEPTH) continue;
      properties[name] = {
        type: 'array',
        maxItems: MAX_BULK_ITEMS,
        items: inputSchema(
          ctx,
          relation.target.resource!,
          relation.nestedValidator!,
          'post',
          depth + 1,
          relation.foreignKey,
        ),
        description: `Records of ${relation.target.resource!.name} created with this one, all or nothing (\`${relation.foreignKey}\` comes from this record).`,
      };
    }
    const parents = parentInputs(ctx, resource, depth, fixedKey);
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const rules: OpenApiSchema[] = [];
    for (const parent of parents) {
      properties[parent.name] = parent.schema;
      const key = properties[parent.foreignKey];
      if (key) {
        key.description = `${typeof key.description === 'string' ? `${key.description} ` : ''}Required unless \`${parent.name}\` is given; never both.`;
      }
      // The engine (src/api/write/write.ts prepareItem): both → 422; neither → 422 when the key is required.
      rules.push(
        required.has(parent.foreignKey)
          ? {
              oneOf: [{ required: [parent.foreignKey] }, { required: [parent.name] }],
              description: `\`${parent.foreignKey}\` or \`${parent.name}\`: exactly one.`,
            }
          : {
              not: { required: [parent.foreignKey, parent.name] },
              description: `Not both \`${parent.foreignKey}\` and \`${parent.name}\`.`,
            },
      );
      required.delete(parent.foreignKey);
    }
    if (parents.length > 0) {
      if (required.size > 0) schema.required = [...required];
      else delete schema.required;
    }
    if (rules.length > 0) schema.allOf = [...((schema.allOf as unknown[]) ?? []), ...rules];
  }
  if (verb !== 'post' && depth === 0) {
    for (const name of resource.nestedWritable)
      properties[name] = childChanges(ctx, resource.relations.get(name)!, verb, depth);
  }
  schema.type = 'object';
  schema.properties = properties;
  schema.additionalProperties = false;
  return schema;
}

/** A relation array of PUT/PATCH (src/api/write/update.ts): items that create, update or delete children. */
function childChanges(
  ctx: DocContext,
  relation: CompiledRelation,
  verb: WriteVerb,
  depth: number,
): OpenApiSchema {
  const target = relation.target.resource!;
  const key = target.primaryKey;
  const keySchema = target.pkObfuscated ? { ...ctx.sqid } : typeSchema(target.columnTypes.get(key)!);
  // A create is an item without the key: `not required` keeps it apart from an update.
  const create = inputSchema(ctx, target, relation.nestedValidator!, 'post', depth + 1, relation.foreignKey);
  const kinds: OpenApiSchema[] = [create];
  const patch = target.exposed.has('patch') ? target.validators.patch : undefined;
  if (patch) {
    const update = inputSchema(ctx, target, patch.without([relation.foreignKey]), 'patch', depth + 1, null);
    update.properties = { [key]: keySchema, ...(update.properties as Record<string, OpenApiSchema>) };
    update.required = [key, ...((update.required as string[] | undefined) ?? [])];
    update.description = `Updates this child (only the fields given).`;
    kinds.push(update);
  }
  if (target.exposed.has('delete')) {
    kinds.push({
      type: 'object',
      description: 'Deletes this child.',
      properties: { [key]: keySchema, _delete: { const: true } },
      required: [key, '_delete'],
      additionalProperties: false,
    });
  }
  return {
    type: 'array',
    maxItems: MAX_BULK_ITEMS,
    items: { oneOf: kinds },
    description:
      verb === 'put'
        ? `The whole set of ${target.name} of this record: an item with \`${key}\` updates that child, one without creates it, \`{"${key}": …, "_delete": true}\` deletes it, and children not listed are deleted. One transaction; each child's own validator, authentication and hooks apply; a \`${key}\` that is not a child of this record → 422 at its path.`
        : `Changes to ${target.name} of this record: an item with \`${key}\` updates that child, one without creates it, \`{"${key}": …, "_delete": true}\` deletes it; children not listed stay. One transaction; each child's own validator, authentication and hooks apply; a \`${key}\` that is not a child of this record → 422 at its path.`,
  };
}

/**
 * The belongsTo objects a POST item may carry (src/api/write/write.ts prepareParent): `{<key>}` refers
 * to an existing parent the caller can see, any other object is a new parent created first.
 */
function parentInputs(ctx: DocContext, resource: CompiledResource, depth: number, fixedKey: string | null) {
  const parents: { name: string; foreignKey: string; schema: OpenApiSchema }[] = [];
  if (depth >= MAX_NESTING_DEPTH) return parents;
  for (const name of resource.allowed) {
    const relation = resource.relations.get(name)!;
    const target = relation.target.resource;
    if (relation.type !== 'belongsTo' || !target || relation.foreignKey === fixedKey) continue;
    const key = relation.targetKey;
    const keySchema = target.obfuscated.has(key) ? { ...ctx.sqid } : typeSchema(target.columnTypes.get(key)!);
    const reference: OpenApiSchema = {
      type: 'object',
      description: `An existing ${target.name} record the caller can see (else 422).`,
      properties: { [key]: keySchema },
      required: [key],
      additionalProperties: false,
    };
    const create = target.served.has('post') ? target.validators.post : undefined;
    parents.push({
      name,
      foreignKey: relation.foreignKey,
      schema: create
        ? {
            oneOf: [reference, inputSchema(ctx, target, create, 'post', depth + 1, null)],
            description: `The ${target.name} record this one belongs to, instead of \`${relation.foreignKey}\`: \`{"${key}": ...}\` refers to an existing one; any other object creates it first, in the same transaction (its own authentication and ability apply).`,
          }
        : {
            ...reference,
            description: `The ${target.name} record this one belongs to, instead of \`${relation.foreignKey}\`.`,
          },
    });
  }
  return parents;
}

/** The word of a write verb in its operation summary and its input component (`PostsCreate`). */
export const VERB_TITLE: Record<WriteVerb, string> = { post: 'Create', put: 'Replace', patch: 'Update' };
