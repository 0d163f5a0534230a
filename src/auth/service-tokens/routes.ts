import { Type } from '@sinclair/typebox';
import {
  ForbiddenError,
  ValidationError,
  sha256Hex,
  defineEndpoint,
  Envelope,
  coversAbilities,
  isValidAbility,
} from '../../plugin-api.ts';
import { mintServiceToken } from './jwt.ts';
import { serviceTokenState } from './state.ts';
import { serviceTokensMessages } from './messages/index.ts';

const MAX_ABILITIES = 50;

const JwkSchema = Type.Union([
  Type.Object({
    kty: Type.Literal('OKP'),
    crv: Type.Literal('Ed25519'),
    x: Type.String(),
    kid: Type.String(),
    alg: Type.Literal('EdDSA'),
    use: Type.Literal('sig'),
  }),
  Type.Object({
    kty: Type.Literal('RSA'),
    n: Type.String(),
    e: Type.String(),
    kid: Type.String(),
    alg: Type.Literal('RS256'),
    use: Type.Literal('sig'),
  }),
]);

const mint = defineEndpoint({
  method: 'POST',
  path: '/token',
  action: 'token.create',
  auth: 'session',
  impersonation: 'forbidden',
  summary: 'A short-lived service token (JWT, EdDSA) for the caller',
  description:
    'Minted from a session or a personal access token (never from another service token). ' +
    "`abilities` narrows it; from a token it never holds more than that token, and that token's " +
    'abilities are the default.',
  body: Type.Object({
    abilities: Type.Optional(
      Type.Array(Type.String({ maxLength: 80 }), {
        maxItems: MAX_ABILITIES,
        'x-message': 'Abilities must be a list of ability names.',
        'x-message-key': 'service-tokens.error.abilitiesList',
      }),
    ),
  }),
  failures: [403],
  responses: {
    200: Envelope({
      fields: {
        access_token: Type.String(),
        token_type: Type.Literal('Bearer'),
        expires_in: Type.Integer(),
      },
    }),
  },
  rateLimit: { name: 'service-token:user', max: 60, windowSeconds: 60, per: 'user' },
  async handler({ body, caller, services, session }) {
    const state = serviceTokenState(services);
    const who = caller;
    if (who.via === 'bearer')
      throw new ForbiddenError(serviceTokensMessages.text('error.noMintFromServiceToken'));
    const wanted = body.abilities;
    if (wanted) {
      const invalid = wanted.find((ability) => !isValidAbility(ability));
      if (invalid !== undefined)
        throw new ValidationError({
          abilities: serviceTokensMessages.text('error.abilityFormat'),
        });
    }
    let abilities: readonly string[] | undefined = wanted;
    let sid: string;
    let notAfter: number | undefined;
    if (who.via === 'token') {
      if (wanted && !coversAbilities(who.token.abilities, wanted))
        throw new ForbiddenError(serviceTokensMessages.text('error.abilitiesBeyondToken'));
      abilities ??= who.token.abilities;
      sid = `token:${who.token.id}`;
      if (who.token.expires_at !== null) notAfter = Math.floor(Date.parse(who.token.expires_at) / 1000);
    } else {
      // An opaque handle of the session: never its id (the cookie's secret) nor the stored hash.
      sid = sha256Hex(`service-token-sid:${session.idHash ?? ''}`).slice(0, 32);
    }
    const minted = await mintServiceToken(
      state.ring,
      state.settings,
      { userId: who.user.id, sid, abilities, notAfter },
      services.clock.now(),
    );
    return {
      status: 'success',
      fields: { access_token: minted.token, token_type: 'Bearer', expires_in: minted.expiresIn },
    };
  },
});

const jwks = defineEndpoint({
  method: 'GET',
  path: '/.well-known/jwks.json',
  action: 'jwks',
  auth: 'anonymous',
  bearer: false,
  alwaysJson: true,
  // Browser-based clients verify ID tokens with these keys (no credentials involved).
  cors: true,
  summary: 'The public keys that verify service tokens and OAuth/OpenID tokens (a JWK Set: `keys`)',
  responses: { 200: Envelope({ fields: { keys: Type.Array(JwkSchema) } }) },
  rateLimit: { name: 'jwks:ip', max: 600, windowSeconds: 60 },
  async handler({ services }) {
    return { status: 'success', fields: { keys: await serviceTokenState(services).ring.published() } };
  },
});

/** The service tokens' endpoints. */
export const serviceTokenEndpoints = [mint, jwks] as const;
