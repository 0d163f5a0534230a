import { Type } from '@sinclair/typebox';

/**
 * A WebAuthn JSON object whose shape is the browser's and the WebAuthn specification's (creation or
 * request options, a registration or an assertion response): passed through whole, described here.
 */
export function webAuthnJson(description: string) {
  return Type.Object({}, { additionalProperties: true, description });
}
