import type { Text } from '../../core/i18n/catalog.ts';
import { coreMessages } from '../../core/i18n/messages/index.ts';

/** One JSON Schema validation failure (Ajv's error object, the fields read here). */
export interface SchemaIssue {
  keyword: string;
  params?: Record<string, unknown>;
  message?: string;
}

const numberParam = (params: Record<string, unknown> | undefined, name: string): number | undefined =>
  typeof params?.[name] === 'number' ? params[name] : undefined;

/** The text of a schema failure, by keyword, in the reader's language (`errors.<field>`). */
export function validationText(issue: SchemaIssue): Text {
  const params = issue.params;
  const limit = numberParam(params, 'limit');
  switch (issue.keyword) {
    case 'required':
      return coreMessages.text('invalid.required');
    case 'type':
      return typeof params?.type === 'string'
        ? coreMessages.text('invalid.type', { type: params.type })
        : coreMessages.text('invalid.other');
    case 'minLength':
      return limit === undefined
        ? coreMessages.text('invalid.other')
        : coreMessages.text('invalid.minLength', { limit });
    case 'maxLength':
      return limit === undefined
        ? coreMessages.text('invalid.other')
        : coreMessages.text('invalid.maxLength', { limit });
    case 'minimum':
      return limit === undefined
        ? coreMessages.text('invalid.other')
        : coreMessages.text('invalid.minimum', { limit });
    case 'maximum':
      return limit === undefined
        ? coreMessages.text('invalid.other')
        : coreMessages.text('invalid.maximum', { limit });
    case 'format':
      return typeof params?.format === 'string'
        ? coreMessages.text('invalid.format', { format: params.format })
        : coreMessages.text('invalid.other');
    case 'pattern':
      return coreMessages.text('invalid.pattern');
    case 'enum':
      return Array.isArray(params?.allowedValues)
        ? coreMessages.text('invalid.enum', { allowed: params.allowedValues.map(String) })
        : coreMessages.text('invalid.other');
    case 'additionalProperties':
      return coreMessages.text('invalid.additional');
    default:
      return coreMessages.text('invalid.other');
  }
}
