import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Language } from '../../core/i18n/catalog.ts';
import { lookupLanguage } from '../../core/i18n/negotiate.ts';

/** Remembers a `?lang=` choice for the next requests (a signed-in account's own `locale` wins). */
export const LANGUAGE_COOKIE = 'citadel_lang';
const ONE_YEAR = 365 * 24 * 60 * 60;

const kLanguage = Symbol('citadel.language');
type WithLanguage = FastifyRequest & { [kLanguage]?: Language };

function queryLang(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  const lang = query && typeof query === 'object' ? query.lang : undefined;
  return typeof lang === 'string' ? lang : undefined;
}

/**
 * The language of a request, chosen once and kept: the signed-in account's `locale`, else
 * `?lang=`, else the `citadel_lang` cookie, else `Accept-Language` (RFC 4647 lookup), else the
 * configured default. A tag without a catalog is skipped, and the next source decides.
 */
export function requestLanguage(request: FastifyRequest): Language {
  const cached = (request as WithLanguage)[kLanguage];
  if (cached) return cached;
  const languages = request.server.languages;
  const tag =
    languages.find(request.caller?.user.locale) ??
    languages.find(queryLang(request)) ??
    languages.find(request.cookies?.[LANGUAGE_COOKIE]) ??
    lookupLanguage(request.headers['accept-language'], languages.available, languages.defaultLocale) ??
    languages.defaultLocale;
  const language = languages.get(tag);
  // Kept once a caller is known: chosen before, it would miss the account's own language.
  if (request.caller) (request as WithLanguage)[kLanguage] = language;
  return language;
}

/** onRequest: a `?lang=` naming an available language is remembered in a cookie (an unknown one is not). */
export function rememberLanguage(request: FastifyRequest, reply: FastifyReply): void {
  const wanted = queryLang(request);
  if (wanted === undefined) return;
  const tag = request.server.languages.find(wanted);
  if (!tag || request.cookies?.[LANGUAGE_COOKIE] === tag) return;
  reply.setCookie(LANGUAGE_COOKIE, tag, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.server.config.secureCookies,
    maxAge: ONE_YEAR,
  });
}
