import type { KeyObject } from 'node:crypto';
import { ConfigError } from '../../core/errors.ts';
import type { CitadelServices } from './services.ts';

/** The JWS algorithms Citadel signs with: RS256 (OpenID Connect's default) and EdDSA (Ed25519). */
export type JwsAlgorithm = 'EdDSA' | 'RS256';

/** Every algorithm of `JwsAlgorithm`, the default (RS256) first. */
export const JWS_ALGORITHMS: readonly JwsAlgorithm[] = ['RS256', 'EdDSA'];

/** An Ed25519 public key as the JWKS publishes it (RFC 8037). */
export interface OkpPublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** An RSA public key as the JWKS publishes it (RFC 7518 §6.3). */
export interface RsaPublicJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  alg: 'RS256';
  use: 'sig';
}

/** A public key of the one JWKS (`GET /.well-known/jwks.json`): Ed25519 or RSA. */
export type PublicJwk = OkpPublicJwk | RsaPublicJwk;

/** The key that signs now for one algorithm. */
export interface SigningKey {
  kid: string;
  alg: JwsAlgorithm;
  privateKey: KeyObject;
}

/**
 * The server's one set of JWS keys, published together at `/.well-known/jwks.json` and rotated
 * together. The service-tokens plugin keeps it; other plugins (the OAuth provider) sign with it.
 */
export interface SigningKeySet {
  /** The key that signs with `alg` now; the first use of an algorithm creates its key. */
  signingKey(alg: JwsAlgorithm): Promise<SigningKey>;
  /** The public key of a published `kid` (undefined when unknown or no longer published). */
  publicKey(kid: unknown): Promise<KeyObject | undefined>;
  /** The published public keys (JWKS `keys`). */
  published(): Promise<PublicJwk[]>;
}

interface Slot {
  set?: SigningKeySet;
  /** Token lifetimes other plugins sign with: a retired key stays published past the longest. */
  lifetimes: number[];
}

const slots = new WeakMap<CitadelServices, Slot>();

function slotOf(services: CitadelServices): Slot {
  let slot = slots.get(services);
  if (!slot) {
    slot = { lifetimes: [] };
    slots.set(services, slot);
  }
  return slot;
}

/** Called by the plugin that keeps the key set (service-tokens). */
export function provideSigningKeys(services: CitadelServices, set: SigningKeySet): void {
  slotOf(services).set = set;
}

/**
 * The server's key set. Throws when no plugin keeps one: a plugin that signs declares
 * `dependencies: ['service-tokens']`.
 */
export function signingKeys(services: CitadelServices): SigningKeySet {
  const set = slots.get(services)?.set;
  if (!set) throw new ConfigError('signing JWTs needs the service-tokens plugin (it keeps the JWKS)');
  return set;
}

/**
 * A plugin signs tokens that live up to `seconds`: a retired key stays published at least that
 * long. Any plugin's `init` may call it, before or after the key set is provided.
 */
export function coverSigningLifetime(services: CitadelServices, seconds: number): void {
  slotOf(services).lifetimes.push(seconds);
}

/** The longest lifetime plugins declared (0 when none). */
export function signingLifetime(services: CitadelServices): number {
  return Math.max(0, ...(slots.get(services)?.lifetimes ?? []));
}

/**
 * The header `typ` of a compact JWS, read without verifying anything, to tell token kinds apart
 * (RFC 8725 §3.11): `undefined` when the token has no `typ` or is not a JWS. Lower-cased, without
 * an `application/` prefix (RFC 7515 §4.1.9).
 */
export function jwsHeaderTyp(token: string): string | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0 || dot > 2048) return undefined;
  try {
    const header = JSON.parse(Buffer.from(token.slice(0, dot), 'base64url').toString('utf8')) as unknown;
    const typ = header !== null && typeof header === 'object' ? (header as { typ?: unknown }).typ : undefined;
    if (typeof typ !== 'string') return undefined;
    const lower = typ.toLowerCase();
    return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
  } catch {
    return undefined;
  }
}
