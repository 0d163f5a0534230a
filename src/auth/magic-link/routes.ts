import { Type } from '@sinclair/typebox';
import {
  NotFoundError,
  defineEndpoint,
  Envelope,
  pageEndpoint,
  publicUser,
  emailSendLimits,
  beginSignIn,
  assertMaySignIn,
  signInAnswer,
} from '../../plugin-api.ts';
import { consumeMagicLink, sendMagicLink } from './tokens.ts';
import { magicLinkOptions } from './options.ts';
import { magicLinkMessages } from './messages/index.ts';
import { magicLinkPage, magicLinkSentPage, type MagicLinkSentPageProps } from './pages.ts';

const INVALID_LINK = magicLinkMessages.text('error.invalidLink');

/** The link's token, exactly as emailed (its length is checked where it is claimed). */
const TokenText = Type.String({ 'x-raw': true, description: 'The emailed sign-in token' });

const showMagicLink = pageEndpoint({
  path: '/magic-link',
  action: 'magic_link.show',
  auth: 'anonymous',
  summary: 'The sign-in-by-email form',
  page: magicLinkPage,
});

const magicLinkSent = pageEndpoint({
  path: '/magic-link/sent',
  action: 'magic_link.sent',
  auth: 'anonymous',
  summary: 'The "check your email" page',
  page: magicLinkSentPage,
  pageProps: ({ services }): MagicLinkSentPageProps => ({
    linkMinutes: Math.round(magicLinkOptions(services).ttlSeconds / 60),
  }),
});

const sendLink = defineEndpoint({
  method: 'POST',
  path: '/magic-link',
  action: 'magic_link.send',
  auth: 'anonymous',
  summary: 'Email a sign-in link (the same answer for any address)',
  body: Type.Object({ email: Type.String({ format: 'email', maxLength: 191 }) }),
  // Per client address and per address, counted whether or not the address has an account.
  rateLimit: emailSendLimits('magic-link', { countInvalid: false }),
  responses: { 200: Envelope() },
  page: magicLinkPage,
  async handler(request) {
    const { body, services } = request;
    // Sent after the response is on its way: the answer and its timing are the same for any address.
    services.emails.afterResponse(
      sendMagicLink(services, body.email, request.language.locale).catch((error: unknown) =>
        request.log.error({ err: error }, 'could not send the magic link email'),
      ),
    );
    return {
      status: 'success',
      message: magicLinkMessages.text('answer.sent'),
      // Browsers go on to the "check your email" page; API clients get `/magic-link`.
      redirect_to: request.client === 'form' ? '/magic-link/sent' : '/magic-link',
    };
  },
});

/**
 * GET /magic-link/verify/:token (the emailed link) or ?token=: a valid, unused, unexpired link
 * signs its user in (through the post-sign-in pipeline, which may ask for one more step).
 */
const verifyLink = defineEndpoint({
  method: 'GET',
  path: '/magic-link/verify/:token',
  aliases: [{ method: 'GET', path: '/magic-link/verify' }],
  action: 'magic_link.verify',
  auth: 'anonymous',
  summary: 'Sign in with an emailed link',
  params: Type.Object({ token: Type.Optional(TokenText) }),
  query: Type.Object({ token: Type.Optional(TokenText) }),
  secrets: ['token'],
  // Signed in (`user`), or one more step to go (`magic_link.action_required`, no user).
  failures: [403, 404],
  responses: { 200: Envelope({ user: 'optional' }) },
  async handler(request) {
    const { params, query, services } = request;
    const token = params.token ?? query.token;
    const user = token === undefined ? undefined : await consumeMagicLink(services, token);
    if (!user) throw new NotFoundError(INVALID_LINK, { redirectTo: '/magic-link' });
    assertMaySignIn(services, user);
    // The link was read in the account's mailbox.
    await services.users.markEmailVerified(user.id);
    const result = await beginSignIn(request, user, { purpose: 'login', remember: false });
    return signInAnswer(
      result,
      {
        status: 'success',
        message: magicLinkMessages.text('answer.signedIn'),
        user: publicUser(request.caller?.user ?? user),
        redirect_to: '/',
      },
      'magic_link.action_required',
    );
  },
});

/** Sign-in by an emailed single-use link. */
export const magicLinkEndpoints = [showMagicLink, magicLinkSent, sendLink, verifyLink] as const;
