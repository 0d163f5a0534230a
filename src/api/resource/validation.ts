import type { TObject, TSchema } from '@sinclair/typebox';
import { FormatRegistry } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

export interface InvalidParam {
  name: string;
  reason: string;
}

/** `/comments/0/body` under prefix `[1]` → `[1].comments[0].body`. */
export function payloadPath(prefix: string, pointer: string): string {
  let path = prefix;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(key)) path += `[${key}]`;
    else path += path === '' ? key : `.${key}`;
  }
  return path;
}

// TypeBox checks `format` only for registered formats; register the usual ones once.
const FORMATS: Record<string, (value: string) => boolean> = {
  email: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
  'date-time': (v) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) &&
    !Number.isNaN(Date.parse(v)),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  uri: (v) => {
    try {
      return Boolean(new URL(v).protocol);
    } catch {
      return false;
    }
  },
};
for (const [name, check] of Object.entries(FORMATS))
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);

/**
 * A write validator compiled once at start-up. The object never accepts properties it does not
 * declare (no mass assignment), whatever the declaration says.
 */
export class PayloadValidator {
  private readonly check: TypeCheck<TSchema>;
  readonly properties: ReadonlySet<string>;
  /** The schema this validator checks (closed, without the omitted properties): the document shows it. */
  readonly closed: TObject;
  private readonly variants = new Map<string, PayloadValidator>();

  constructor(
    private readonly schema: TObject,
    private readonly omit: readonly string[] = [],
  ) {
    const properties = Object.fromEntries(
      Object.entries(schema.properties).filter(([key]) => !omit.includes(key)),
    );
    const required = (schema.required ?? []).filter((key) => !omit.includes(key));
    const closed = { ...schema, properties, required, additionalProperties: false } as TObject;
    if (required.length === 0) delete (closed as { required?: string[] }).required;
    this.check = TypeCompiler.Compile(closed);
    this.closed = closed;
    this.properties = new Set(Object.keys(properties));
  }

  /**
   * The same validator without some properties (foreign keys a belongsTo object fills), compiled
   * once per combination and reused.
   */
  without(keys: readonly string[]): PayloadValidator {
    const id = [...keys].sort().join(',');
    let variant = this.variants.get(id);
    if (!variant) {
      variant = new PayloadValidator(this.schema, [...this.omit, ...keys]);
      this.variants.set(id, variant);
    }
    return variant;
  }

  /** One reason per payload path, paths prefixed with `prefix`. */
  errors(value: unknown, prefix: string): InvalidParam[] {
    if (this.check.Check(value)) return [];
    const seen = new Map<string, string>();
    for (const error of this.check.Errors(value)) {
      const name = payloadPath(prefix, error.path) || prefix || '(body)';
      if (!seen.has(name)) seen.set(name, error.message);
    }
    return [...seen].map(([name, reason]) => ({ name, reason }));
  }
}
