import { ValidationError } from '../core/errors.ts';
import { parseMailbox } from './email-address.ts';

export interface StringRule {
  required?: boolean;
  min?: number;
  max?: number;
  /** Keep surrounding spaces (passwords); other fields are trimmed. */
  raw?: boolean;
  pattern?: RegExp;
  patternMessage?: string;
  label?: string;
}

function humanize(name: string): string {
  const text = name.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Reads fields from a JSON or form body and collects one error message per field, so a handler
 * validates everything and then throws a single 422 with every problem at once.
 */
export class FieldReader {
  readonly errors: Record<string, string> = {};
  private readonly body: Record<string, unknown>;

  constructor(body: unknown) {
    this.body =
      body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  }

  fail(name: string, message: string): void {
    this.errors[name] ??= message;
  }

  /** The body's own value of a field: an inherited property is never input. */
  private value(name: string): unknown {
    return Object.hasOwn(this.body, name) ? this.body[name] : undefined;
  }

  has(name: string): boolean {
    const value = this.value(name);
    return value !== undefined && value !== null && value !== '';
  }

  raw(name: string): unknown {
    return this.value(name);
  }

  string(name: string, rule: StringRule = {}): string | undefined {
    const label = rule.label ?? humanize(name);
    const value = this.value(name);
    if (value === undefined || value === null || value === '') {
      if (rule.required) this.fail(name, `${label} is required.`);
      return undefined;
    }
    if (typeof value !== 'string' && typeof value !== 'number') {
      this.fail(name, `${label} must be text.`);
      return undefined;
    }
    const text = rule.raw ? String(value) : String(value).trim();
    // PostgreSQL text cannot hold U+0000 (a query with one fails): no real input needs it.
    if (text.includes('\u0000')) {
      this.fail(name, `${label} contains an invalid character.`);
      return undefined;
    }
    if (text === '' && rule.required) {
      this.fail(name, `${label} is required.`);
      return undefined;
    }
    const length = [...text].length;
    if (rule.min !== undefined && length < rule.min)
      this.fail(name, `${label} must be at least ${rule.min} characters.`);
    else if (rule.max !== undefined && length > rule.max)
      this.fail(name, `${label} must be at most ${rule.max} characters.`);
    else if (rule.pattern && !rule.pattern.test(text))
      this.fail(name, rule.patternMessage ?? `${label} is not valid.`);
    return text;
  }

  email(name: string, rule: { required?: boolean; label?: string } = {}): string | undefined {
    const label = rule.label ?? 'Email';
    const value = this.string(name, { required: rule.required, max: 191, label });
    if (value === undefined) return undefined;
    const mailbox = parseMailbox(value);
    // The text as typed stays for re-filled forms; a valid one comes back in its stored form.
    if (mailbox === null) this.fail(name, `${label} must be a valid email address.`);
    return mailbox ?? value;
  }

  /** true for true, 1, "1", "true", "on", "yes". */
  boolean(name: string): boolean {
    const value = this.value(name);
    return (
      value === true ||
      value === 1 ||
      (typeof value === 'string' && ['1', 'true', 'on', 'yes'].includes(value.toLowerCase()))
    );
  }

  get valid(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  throwIfInvalid(): void {
    if (!this.valid) throw new ValidationError({ ...this.errors });
  }
}
