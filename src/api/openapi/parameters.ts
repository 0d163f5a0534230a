import type { CompiledResource, RelationTarget } from '../resource/compile.ts';
import { COUNT_MODES } from '../read/count.ts';
import { selectableFields } from '../request/fields.ts';
import {
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_LIST,
  operatorsFor,
} from '../request/filters.ts';
import { MAX_EMBEDDED_ROWS, maxDeriveDepth } from '../request/derive-limits.ts';
import type { OpenApiSchema } from './json-schema.ts';
import { typeSchema } from './column-schema.ts';

/**
 * The query parameters of list and single reads, from the compiled resource the engine checks
 * queries against (src/api/request/query.ts, src/api/request/filters.ts): each accepted value is
 * described, and the schemas' patterns accept exactly what the parsers accept.
 */

const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `^(a|b)(,(a|b))*$`: a comma-separated list of the given items. */
function listPattern(items: readonly string[]): string {
  const one = `(${items.map(escape).join('|')})`;
  return `^${one}(,${one})*$`;
}

/** Every dotted derive path the engine accepts, in breadth order (at most `maxDeriveDepth` deep). */
export function derivePaths(resource: CompiledResource): string[] {
  const paths: string[] = [];
  const limit = maxDeriveDepth(resource);
  const walk = (level: CompiledResource, prefix: string, depth: number) => {
    if (depth > limit) return;
    for (const name of level.allowed) {
      const path = prefix ? `${prefix}.${name}` : name;
      paths.push(path);
      const target = level.relations.get(name)!.target.resource;
      if (target) walk(target, path, depth + 1);
    }
  };
  walk(resource, '', 1);
  return paths;
}

function deriveParameter(resource: CompiledResource): unknown[] {
  const paths = derivePaths(resource);
  if (paths.length === 0) return [];
  return [
    {
      name: 'derive',
      in: 'query',
      description: `Comma-separated relations to embed: ${resource.allowed.map((r) => `\`${r}\``).join(', ')}; dotted paths embed deeper (at most ${maxDeriveDepth(resource)} levels) where each level allows it. A response embeds at most ${MAX_EMBEDDED_ROWS} related rows in all (a row shared by several parents counts once per parent); above either limit the answer is 400.`,
      'x-max-depth': maxDeriveDepth(resource),
      'x-max-embedded-rows': MAX_EMBEDDED_ROWS,
      schema: { type: 'string', pattern: listPattern(paths) },
      examples: { one: { value: paths[0] } },
    },
  ];
}

/** One value of an `in` list, per column type (the list parser splits at commas). */
const LIST_ITEM: Partial<Record<string, string>> = {
  integer: '-?[0-9]+',
  bigint: '-?[0-9]+',
  number: '-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?',
  decimal: '-?[0-9]+(\\.[0-9]+)?',
  boolean: '(true|false)',
  date: '[0-9]{4}-[0-9]{2}-[0-9]{2}',
};

/** The value schema of one operator on one column, as a query string carries it. */
function operatorValue(resource: CompiledResource, column: string, op: string): OpenApiSchema {
  if (op === 'null') return { type: 'string', enum: ['true', 'false'] };
  if (op === 'contains' || op === 'starts') return { type: 'string', minLength: 1, maxLength: 200 };
  const base = resource.obfuscated.has(column)
    ? { type: 'string' }
    : typeSchema(resource.columnTypes.get(column)!);
  if (op === 'in' || op === 'nin') {
    const item = resource.obfuscated.has(column)
      ? '[^,]+'
      : (LIST_ITEM[resource.columnTypes.get(column)!] ?? '[^,]*');
    return {
      type: 'string',
      pattern: `^${item}(,${item})*$`,
      description: `Comma-separated values (at most ${MAX_FILTER_LIST}), each as in \`eq\`.`,
    };
  }
  // A query string carries text: numbers and booleans as their JSON spelling.
  return base.type === 'boolean' ? { type: 'string', enum: ['true', 'false'] } : base;
}

const OPERATOR_MEANING: Record<string, string> = {
  eq: 'equals',
  ne: 'differs from',
  gt: 'is greater than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  in: 'is one of (comma-separated)',
  nin: 'is none of (comma-separated)',
  contains: 'contains, case-insensitively,',
  starts: 'starts, case-insensitively, with',
  null: 'is null (`true`) or not (`false`):',
};

/** The component name of a resource's filter tree schema. */
export function filterComponent(component: string): string {
  return `${component}Filter`;
}

/** A JSON schema of the filter tree of the `filter` parameter (JSON form), refering to itself by `self`. */
export function filterTreeSchema(resource: CompiledResource, self: string): OpenApiSchema {
  const fields: Record<string, OpenApiSchema> = {};
  for (const column of resource.filterable) {
    const ops: Record<string, OpenApiSchema> = {};
    for (const op of operatorsFor(resource, column)) {
      const value = operatorValue(resource, column, op);
      ops[op] =
        op === 'in' || op === 'nin'
          ? { oneOf: [value, { type: 'array', items: {}, minItems: 1, maxItems: MAX_FILTER_LIST }] }
          : op === 'null'
            ? { oneOf: [{ type: 'boolean' }, value] }
            : {};
    }
    fields[column] = { type: 'object', properties: ops, additionalProperties: false, minProperties: 1 };
  }
  const group = { type: 'array', minItems: 1, items: { $ref: self } };
  return {
    type: 'object',
    properties: { ...fields, and: group, or: group },
    additionalProperties: false,
    minProperties: 1,
  };
}

function filterParameters(resource: CompiledResource, component: string): unknown[] {
  if (resource.filterable.size === 0) return [];
  const parameters: unknown[] = [];
  for (const column of resource.filterable) {
    const description = resource.config.columns[column]!.description;
    parameters.push({
      name: column,
      in: 'query',
      description: `Only records whose \`${column}\` equals this value${resource.obfuscated.has(column) ? ' (an obfuscated id)' : ''}; the same as \`filter[${column}][eq]\`.${description ? ` ${description}` : ''}`,
      schema: operatorValue(resource, column, 'eq'),
    });
    for (const op of operatorsFor(resource, column)) {
      parameters.push({
        name: `filter[${column}][${op}]`,
        in: 'query',
        description: `Only records whose \`${column}\` ${OPERATOR_MEANING[op]} this value.`,
        schema: operatorValue(resource, column, op),
      });
    }
  }
  parameters.push({
    name: 'filter',
    in: 'query',
    description: `A filter tree as JSON: \`{"field": {"op": value}, "or": [{…}, {…}], "and": [{…}]}\`; every key of an object must hold. The bracket form takes the same tree: \`filter[or][0][field][op]=value\`, \`filter[and][1][or][0][field][op]=value\`. Groups nest at most ${MAX_FILTER_DEPTH} deep, with at most ${MAX_FILTER_CONDITIONS} conditions in all. Filterable: ${[...resource.filterable].map((c) => `\`${c}\` (${operatorsFor(resource, c).join(', ')})`).join('; ')}. An unknown field or operator, or a value of the wrong type → 400 naming it.`,
    content: {
      'application/json': {
        // "No filter" first and as the example: the documentation page sends it as it is.
        schema: {
          oneOf: [
            { type: 'object', maxProperties: 0, description: 'No filter.' },
            { $ref: `#/components/schemas/${filterComponent(component)}` },
          ],
        },
        example: {},
      },
    },
  });
  return parameters;
}

/** `fields` and one `fields[path]` per derivable path. */
function fieldsParameters(resource: CompiledResource): unknown[] {
  const own = selectableFields({ ...resource, resource, output: resource.output });
  const parameters: unknown[] = [
    {
      name: 'fields',
      in: 'query',
      description: `Comma-separated fields to return (a sparse fieldset); the primary key \`${resource.primaryKey}\` is always included. Fields: ${own.map((f) => `\`${f}\``).join(', ')}. Any other name → 400.`,
      schema: { type: 'string', pattern: listPattern(own) },
      examples: { two: { value: own.slice(0, 2).join(',') } },
    },
  ];
  for (const path of derivePaths(resource)) {
    let level: CompiledResource = resource;
    let target: RelationTarget | null = null;
    for (const step of path.split('.')) {
      target = level.relations.get(step)!.target;
      if (target.resource) level = target.resource;
    }
    const selectable = selectableFields(target!);
    parameters.push({
      name: `fields[${path}]`,
      in: 'query',
      description: `Comma-separated fields of the derived \`${path}\` (with \`derive=${path}\`; its key is always included). Fields: ${selectable.map((f) => `\`${f}\``).join(', ')}.`,
      schema: { type: 'string', pattern: listPattern(selectable) },
    });
  }
  return parameters;
}

export function listParameters(resource: CompiledResource, component: string): unknown[] {
  const sortable = [...resource.sortable];
  const parameters: unknown[] = [
    {
      name: 'page',
      in: 'query',
      description: 'Page number, from 1. Not together with `cursor`.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    },
    {
      name: 'limit',
      in: 'query',
      description: `Records per page. Above ${resource.maxLimit} it is lowered to ${resource.maxLimit} (reported in \`pagination.limit\`).`,
      schema: { type: 'integer', minimum: 1, default: resource.defaultLimit },
    },
    {
      name: 'cursor',
      in: 'query',
      description:
        'The `pagination.nextCursor` of the previous page: the next page by keyset, at the same cost at any depth. Send it with the same `sort`, filters, `search` and `fields` (`limit` may change); a cursor of another query, or altered, → 400. Not together with `page`.',
      schema: { type: 'string', minLength: 1, maxLength: 4096 },
    },
    {
      name: 'count',
      in: 'query',
      description:
        "`exact` counts the matching records; `none` counts nothing (`total` and `totalPages` are null, `hasMore` is read); `estimated` gives the PostgreSQL planner's estimate (`pagination.totalEstimated: true`) and an exact count on SQLite and MySQL.",
      schema: { type: 'string', enum: [...COUNT_MODES], default: 'exact' },
    },
  ];
  if (sortable.length > 0) {
    parameters.push({
      name: 'sort',
      in: 'query',
      description: `Comma-separated fields, \`-\` for descending; ties are broken by the primary key. Sortable: ${sortable.map((f) => `\`${f}\``).join(', ')}.`,
      schema: { type: 'string', pattern: listPattern(sortable.flatMap((f) => [f, `-${f}`])) },
      examples: { descending: { value: `-${sortable[0]}` } },
    });
  }
  if (resource.searchable.length > 0) {
    parameters.push({
      name: 'search',
      in: 'query',
      description: `Case-insensitive (Unicode) substring over ${resource.searchable.map((f) => `\`${f}\``).join(', ')}; \`%\` and \`_\` match literally.`,
      schema: { type: 'string', maxLength: 200 },
    });
  }
  parameters.push(
    ...filterParameters(resource, component),
    ...deriveParameter(resource),
    ...fieldsParameters(resource),
  );
  return parameters;
}

export function itemParameters(resource: CompiledResource): unknown[] {
  return [...deriveParameter(resource), ...fieldsParameters(resource)];
}
