import type { CompiledRelation, CompiledResource } from '../resource/compile.ts';
import { typeSchema } from './column-schema.ts';
import { orNull, type OpenApiSchema } from './json-schema.ts';
import { componentName, ref, type DocContext } from './names.ts';

function columnSchema(ctx: DocContext, resource: CompiledResource, name: string): OpenApiSchema {
  const column = resource.config.columns[name]!;
  let schema: OpenApiSchema = resource.obfuscated.has(name)
    ? { ...ctx.sqid }
    : typeSchema(column.type, column.precision, column.scale);
  if (column.description)
    schema.description = `${column.description}${resource.obfuscated.has(name) ? ' (obfuscated key)' : ''}`;
  if (column.nullable) schema = orNull(schema);
  if (column.readOnly || column.timestamp || name === resource.primaryKey) schema.readOnly = true;
  return schema;
}

/** The other side of a relation: its component when published in this version, else inline. */
function relatedSchema(
  ctx: DocContext,
  relation: CompiledRelation,
  published: ReadonlySet<string>,
): OpenApiSchema {
  const target = relation.target.resource;
  if (target && published.has(target.name)) return ref('schemas', componentName(target.name));
  if (target) return recordSchema(ctx, target, published, false);
  // A plain table (for example `users` as a post's author): the listed columns only.
  const properties: Record<string, OpenApiSchema> = {};
  for (const field of relation.target.output) {
    properties[field.key] = field.kind === 'id' ? { ...ctx.sqid } : typeSchema(field.kind);
  }
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/**
 * A record as responses carry it: its visible columns, the fields hooks add, and the relations a
 * client may derive. With `fields=` only the primary key is sure to be there.
 */
export function recordSchema(
  ctx: DocContext,
  resource: CompiledResource,
  published: ReadonlySet<string>,
  withRelations: boolean,
): OpenApiSchema {
  const properties: Record<string, OpenApiSchema> = {};
  for (const field of resource.output) properties[field.key] = columnSchema(ctx, resource, field.key);
  for (const [name, field] of Object.entries(resource.config.computedFields ?? {})) {
    let schema = typeSchema(field.type);
    if (field.description) schema.description = field.description;
    if (field.nullable) schema = orNull(schema);
    properties[name] = { ...schema, readOnly: true };
  }
  if (withRelations) {
    for (const name of resource.allowed) {
      const relation = resource.relations.get(name)!;
      const target = relatedSchema(ctx, relation, published);
      const description = `Embedded when requested with \`derive=${name}\`.`;
      properties[name] =
        relation.type === 'hasMany'
          ? { type: 'array', items: target, description }
          : { oneOf: [target, { type: 'null' }], description };
    }
  }
  return {
    type: 'object',
    ...(resource.config.description ? { description: resource.config.description } : {}),
    properties,
    required: [resource.primaryKey],
  };
}
