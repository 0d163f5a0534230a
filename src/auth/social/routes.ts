import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError, NotFoundError } from '../../core/errors.ts';
import { publicUser } from '../core/users.ts';
import { beginSignIn } from '../pipeline/runner.ts';
import { assertMaySignIn } from '../accounts/login.ts';
import { respondToSignIn } from '../pipeline/sign-in-response.ts';
import { SocialProviders, type SocialProvider } from './providers.ts';
import { findOrCreateSocialUser } from './identities.ts';
import { startFlow, takeFlow } from './state.ts';

const FAILED = 'Signing in with the provider failed. Please try again.';

/** Social sign-in: GET /oauth/{provider} redirects out, GET /oauth/callback/{provider} comes back. */
export async function socialRoutes(app: FastifyInstance): Promise<void> {
  const services = app;
  const providers = new SocialProviders(services.config.oauthProviders, services.config.appUrl);

  function providerFor(request: FastifyRequest): SocialProvider {
    const provider = providers.get((request.params as { provider: string }).provider);
    if (!provider) throw new NotFoundError('Unknown sign-in provider.');
    return provider;
  }

  app.get('/oauth/:provider', { config: { action: 'social.redirect' } }, async (request, reply) => {
    const provider = providerFor(request);
    const checks = startFlow(request, provider.id, provider.isOpenIdConnect);
    let url: URL;
    try {
      url = await provider.authorizationUrl(checks);
    } catch (error) {
      request.log.warn({ err: error, provider: provider.id }, 'social sign-in: provider discovery failed');
      throw new BadRequestError('The sign-in provider cannot be reached right now.', {
        action: 'social.login',
      });
    }
    return reply.redirect(url.href, 302);
  });

  const callback = { config: { action: 'social.login', secrets: ['code', 'state'] } };
  app.get('/oauth/callback/:provider', callback, async (request, reply) => {
    const provider = providerFor(request);
    const query = request.query as Record<string, unknown>;
    const checks = takeFlow(request, provider.id, query.state);
    if (typeof query.error === 'string') {
      // The provider's own words (error_description) are not shown: they are not ours to vouch for.
      request.log.info({ provider: provider.id, error: query.error.slice(0, 100) }, 'social sign-in refused');
      throw new BadRequestError('The provider did not sign you in.');
    }
    if (!checks)
      throw new BadRequestError('This sign-in attempt is invalid or has expired. Please start again.');

    const callbackUrl = new URL(provider.redirectUri);
    for (const [key, value] of Object.entries(query)) {
      if (typeof value === 'string') callbackUrl.searchParams.set(key, value);
    }
    let profile;
    try {
      profile = await provider.exchange(callbackUrl, checks);
    } catch (error) {
      request.log.warn({ err: error, provider: provider.id }, 'social sign-in: code exchange failed');
      throw new BadRequestError(FAILED);
    }
    if (profile.subject.length === 0 || profile.subject.length > 191) throw new BadRequestError(FAILED);

    const { user } = await findOrCreateSocialUser(services, provider.id, profile);
    assertMaySignIn(services, user);

    const result = await beginSignIn(request, reply, user, { purpose: 'login', remember: false });
    return respondToSignIn(request, reply, result, {
      action: 'social.login',
      status: 'success',
      message: `You are signed in with ${provider.settings.label}.`,
      user: publicUser(user),
      redirectTo: '/',
    });
  });
}
