import { Type, type TObject, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox';

/**
 * TypeBox schemas of the auth envelope, for endpoint declarations:
 * they serialize JSON answers, document them (the auth OpenAPI document) and type the client.
 */

export const PublicUserSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: Type.String(),
  active: Type.Boolean(),
});

const BASE = {
  action: Type.String(),
  status: Type.Union([Type.Literal('success'), Type.Literal('info'), Type.Literal('error')]),
  statusCode: Type.Integer(),
  message: Type.Optional(Type.String()),
  redirect_to: Type.Optional(Type.String()),
};

type UserPart<U> = U extends 'required'
  ? { user: typeof PublicUserSchema }
  : U extends 'optional'
    ? { user: TOptional<typeof PublicUserSchema> }
    : unknown;
type DataPart<D> = D extends TSchema ? { data: D } : unknown;

/** The properties of an envelope with these parts (kept literal for the typed client). */
export type EnvelopeProperties<D, U, F> = typeof BASE & DataPart<D> & UserPart<U> & F;

/**
 * An envelope answer: `data` when given, `user` when `'required'` (or `'optional'`), and
 * top-level `fields` beside them (`token`, `tokens`).
 */
export function Envelope<
  D extends TSchema | undefined = undefined,
  U extends 'required' | 'optional' | undefined = undefined,
  F extends TProperties = TProperties,
>(parts: { data?: D; user?: U; fields?: F } = {}): TObject<EnvelopeProperties<D, U, F> & TProperties> {
  const properties: TProperties = { ...BASE, ...parts.fields };
  if (parts.user === 'required') properties.user = PublicUserSchema;
  if (parts.user === 'optional') properties.user = Type.Optional(PublicUserSchema);
  if (parts.data) properties.data = parts.data;
  return Type.Object(properties) as TObject<EnvelopeProperties<D, U, F> & TProperties>;
}
