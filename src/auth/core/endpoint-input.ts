import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, ValueErrorType, type ValueError } from '@sinclair/typebox/compiler';
import { ValidationError } from '../../core/errors.ts';
import { emptyRecord } from '../../core/request-keys.ts';
import { parseMailbox } from '../../http/request/email-address.ts';
import { keyedText, type Text } from '../../core/i18n/catalog.ts';
import { authMessages } from './messages/index.ts';

/**
 * Reading an endpoint's params, query or body against its TypeBox schema:
 * the same rules for JSON and form clients. Strings are trimmed (a property with `x-raw: true`,
 * such as a password, keeps its spaces), an empty string is an absent field, form text becomes
 * the declared boolean, number or list, U+0000 is refused, `format: 'email'` is one RFC 5321
 * mailbox returned lower-cased, and only declared properties reach the handler (unless the schema
 * has `additionalProperties`: then the others do too, decoded by it, for a body whose fields belong
 * to someone else, such as a sign-in step's). Every problem is collected into one 422 with a
 * message per field.
 */

FormatRegistry.Set('email', (value) => parseMailbox(value) !== null);

const TRUE_WORDS = new Set(['1', 'true', 'on', 'yes']);
const FALSE_WORDS = new Set(['0', 'false', 'off', 'no']);

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  format?: string;
  title?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  'x-raw'?: boolean;
  'x-pattern-message'?: string;
  /** One message for any problem of this field's value (a union of accepted shapes). */
  'x-message'?: string;
  /**
   * The full catalog keys of those two (`accounts.usernamePattern`): the reader's language, with
   * the English `x-message` / `x-pattern-message` where no catalog has the key.
   */
  'x-message-key'?: string;
  'x-pattern-message-key'?: string;
  /** Fields beyond the declared ones: passed on, decoded by this schema (`true`: text untrimmed). */
  additionalProperties?: SchemaNode | boolean;
}

function humanize(name: string): string {
  const text = name.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** One field's text, or a problem with it. */
function decodeString(value: string, node: SchemaNode): string | undefined | { problem: 'invalidCharacter' } {
  if (value.includes('\u0000')) return { problem: 'invalidCharacter' };
  const text = node['x-raw'] ? value : value.trim();
  if (text === '') return undefined;
  if (node.format === 'email') return parseMailbox(text) ?? text;
  return text;
}

function decodeValue(value: unknown, node: SchemaNode): unknown {
  const type = node.type;
  if (type === 'boolean') {
    if (typeof value === 'string') {
      const word = value.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word) || word === '') return false;
    }
    if (value === 1) return true;
    if (value === 0) return false;
    return value;
  }
  if ((type === 'integer' || type === 'number') && typeof value === 'string') {
    const text = value.trim();
    if (text === '') return undefined;
    return /^-?[0-9]+(\.[0-9]+)?$/.test(text) ? Number(text) : value;
  }
  if (type === 'array' && node.items) {
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) => decodeValue(item, node.items!));
  }
  if (typeof value === 'string') return decodeString(value, node);
  return value;
}

/** A field whose schema takes `null` (a union with `Type.Null()`): null, or a form's empty value, is kept as null. */
function acceptsNull(node: SchemaNode): boolean {
  return node.type === 'null' || (node.anyOf?.some((option) => option.type === 'null') ?? false);
}

/** A schema's own message: from the catalogs when it names a key, else its English text. */
function schemaText(english: string, key: string | undefined): Text {
  return key === undefined ? english : keyedText(key, english);
}

function message(error: ValueError, label: string): Text {
  const node = error.schema as SchemaNode;
  if (error.type !== ValueErrorType.ObjectRequiredProperty && node['x-message'])
    return schemaText(node['x-message'], node['x-message-key']);
  const t = authMessages.text;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return t('field.required', { label });
    case ValueErrorType.StringMinLength:
      return node.minLength === 1
        ? t('field.required', { label })
        : t('field.minLength', { label, limit: node.minLength ?? 0 });
    case ValueErrorType.StringMaxLength:
      return t('field.maxLength', { label, limit: node.maxLength ?? 0 });
    case ValueErrorType.StringFormat:
      return node.format === 'email' ? t('field.email', { label }) : t('field.invalid', { label });
    case ValueErrorType.StringPattern:
      return node['x-pattern-message'] !== undefined
        ? schemaText(node['x-pattern-message'], node['x-pattern-message-key'])
        : t('field.invalid', { label });
    case ValueErrorType.String:
      return t('field.text', { label });
    case ValueErrorType.Boolean:
      return t('field.boolean', { label });
    case ValueErrorType.Integer:
    case ValueErrorType.Number:
      return t('field.number', { label });
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return t('field.minimum', { label, limit: node.minimum ?? 0 });
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return t('field.maximum', { label, limit: node.maximum ?? 0 });
    case ValueErrorType.Array:
      return t('field.list', { label });
    case ValueErrorType.ArrayMinItems:
      return t('field.minItems', { label, limit: node.minItems ?? 0 });
    case ValueErrorType.ArrayMaxItems:
      return t('field.maxItems', { label, limit: node.maxItems ?? 0 });
    default:
      return t('field.invalid', { label });
  }
}

/** Rules across fields or from settings, run on the decoded value even when the schema failed. */
export type InputRefinement = (value: Record<string, unknown>) => Record<string, Text> | void;

const LENGTH_ERRORS: ReadonlySet<ValueErrorType> = new Set([
  ValueErrorType.StringMinLength,
  ValueErrorType.StringMaxLength,
]);

/** A top-level text field's length rule, counted in characters as a person counts them. */
function lengthProblem(text: string, node: SchemaNode, label: string): Text | null {
  if (node.minLength === undefined && node.maxLength === undefined) return null;
  const length = [...text].length;
  if (node.minLength !== undefined && length < node.minLength)
    return node.minLength === 1
      ? authMessages.text('field.required', { label })
      : authMessages.text('field.minLength', { label, limit: node.minLength });
  if (node.maxLength !== undefined && length > node.maxLength)
    return authMessages.text('field.maxLength', { label, limit: node.maxLength });
  return null;
}

/** A decoded value and the problems found in it (none: it matches the schema). */
export interface DecodedInput<T> {
  value: T;
  errors: Record<string, Text>;
}

export interface InputReader<T> {
  /** The decoded value with every problem: the schema's and the refinement's together. */
  decode(raw: unknown, refine?: InputRefinement): DecodedInput<T>;
  /** The decoded, checked value, or a 422 naming each field with its problem. */
  read(raw: unknown, refine?: InputRefinement): T;
}

/**
 * The fields that passed (a part without a schema: none), for a page shown with any answer, a
 * refusal too: it reads what the handler would have, never what failed.
 */
export function validFields(decoded: DecodedInput<unknown>): Record<string, unknown> {
  const value: Record<string, unknown> = {
    ...((decoded.value as Record<string, unknown> | undefined) ?? {}),
  };
  for (const field of Object.keys(decoded.errors)) delete value[field];
  return value;
}

/** The value, or a 422 with every problem at once. */
export function validOrThrow<T>(decoded: DecodedInput<T>): T {
  if (Object.keys(decoded.errors).length > 0) throw new ValidationError(decoded.errors);
  return decoded.value;
}

/** Compile once per endpoint part; `schema` is an object schema of named fields. */
export function inputReader<T>(schema: TSchema | undefined): InputReader<T> {
  if (schema === undefined)
    return { decode: () => ({ value: undefined as T, errors: {} }), read: () => undefined as T };
  const root = schema as SchemaNode;
  const properties = root.properties ?? {};
  const check = TypeCompiler.Compile(schema);
  const labelOf = (field: string) => properties[field]?.title ?? humanize(field);

  return {
    read(raw: unknown, refine?: InputRefinement): T {
      return validOrThrow(this.decode(raw, refine));
    },
    decode(raw: unknown, refine?: InputRefinement): DecodedInput<T> {
      const source =
        raw !== null && typeof raw === 'object' && !Array.isArray(raw)
          ? (raw as Record<string, unknown>)
          : {};
      const value = emptyRecord();
      const errors: Record<string, Text> = {};
      const rest = root.additionalProperties;
      const fields: [string, SchemaNode][] = Object.entries(properties);
      if (rest)
        for (const field of Object.keys(source))
          if (!Object.hasOwn(properties, field))
            fields.push([field, rest === true ? { 'x-raw': true } : rest]);
      for (const [field, node] of fields) {
        if (!Object.hasOwn(source, field)) continue;
        const decoded = decodeValue(source[field], node);
        if (decoded !== null && typeof decoded === 'object' && 'problem' in decoded) {
          errors[field] = authMessages.text('field.invalidCharacter', { label: labelOf(field) });
        } else if (decoded === undefined || decoded === null) {
          if (acceptsNull(node)) value[field] = null;
        } else {
          value[field] = decoded;
          const problem = typeof decoded === 'string' ? lengthProblem(decoded, node, labelOf(field)) : null;
          if (problem) errors[field] = problem;
        }
      }
      // A plain object for the handler (its prototype-free source already passed the key check).
      const plain: Record<string, unknown> = { ...value };
      if (!check.Check(plain)) {
        for (const error of check.Errors(plain)) {
          // Lengths count characters (code points), not UTF-16 units: checked above.
          if (LENGTH_ERRORS.has(error.type) && error.path.split('/').length === 2) continue;
          const field = error.path.split('/')[1] ?? '';
          const name = field === '' ? 'body' : field;
          errors[name] ??= message(error, labelOf(field));
        }
      }
      for (const [field, problem] of Object.entries(refine?.(plain) ?? {})) errors[field] ??= problem;
      return { value: plain as T, errors };
    },
  };
}
