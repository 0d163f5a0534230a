import * as oidc from 'openid-client';
import type { OAuthProviderConfig } from '../../plugin-api.ts';

/** What Citadel needs from a provider's account: who it is, its email, and naming hints. */
export interface SocialProfile {
  subject: string;
  email: string | null;
  /** True only when the provider says it verified the address. */
  emailVerified: boolean;
  /** Candidate usernames, best first (preferred_username, login, name, email local part). */
  usernameHints: string[];
}

/** What the callback checks against: kept in the session between redirect and callback. */
export interface FlowChecks {
  state: string;
  codeVerifier: string;
  nonce?: string;
}

/** Plain http is refused except on loopback, where test and development providers run. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Some providers send `email_verified` as the string "true". */
function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}

/** How the client authenticates at the token endpoint: HTTP Basic (RFC 6749's default) unless configured. */
function clientAuthentication(settings: OAuthProviderConfig): oidc.ClientAuth {
  return settings.tokenEndpointAuth === 'client_secret_post'
    ? oidc.ClientSecretPost(settings.clientSecret)
    : oidc.ClientSecretBasic(settings.clientSecret);
}

/** One configured provider: OpenID Connect by discovery, or plain OAuth 2.0 by explicit endpoints. */
export class SocialProvider {
  private configuration: Promise<oidc.Configuration> | null = null;

  constructor(
    readonly settings: OAuthProviderConfig,
    readonly redirectUri: string,
  ) {}

  get id(): string {
    return this.settings.id;
  }

  /** OpenID Connect (ID token, nonce) when an issuer is configured. */
  get isOpenIdConnect(): boolean {
    return Boolean(this.settings.issuer);
  }

  private get allowsInsecure(): boolean {
    const urls = [
      this.settings.issuer,
      this.settings.authorizationUrl,
      this.settings.tokenUrl,
      this.settings.userinfoUrl,
    ].filter((u): u is string => Boolean(u));
    return urls.length > 0 && urls.every(isLoopbackUrl);
  }

  /** The client configuration, discovered once per process (retried after a failure). */
  private config(): Promise<oidc.Configuration> {
    this.configuration ??= this.createConfiguration().catch((error: unknown) => {
      this.configuration = null;
      throw error;
    });
    return this.configuration;
  }

  private async createConfiguration(): Promise<oidc.Configuration> {
    const { settings } = this;
    const execute = this.allowsInsecure ? [oidc.allowInsecureRequests] : [];
    const clientAuth = clientAuthentication(settings);
    if (settings.issuer) {
      // The ID token's signature is checked against the provider's JWKS (from discovery): without
      // this step the library only checks the claims, and a forged token would pass.
      return oidc.discovery(new URL(settings.issuer), settings.clientId, undefined, clientAuth, {
        execute: [...execute, oidc.enableNonRepudiationChecks],
      });
    }
    const config = new oidc.Configuration(
      {
        // Plain OAuth 2.0 has no issuer identifier; the authorization server's origin stands in.
        issuer: new URL(settings.authorizationUrl!).origin,
        authorization_endpoint: settings.authorizationUrl,
        token_endpoint: settings.tokenUrl,
      },
      settings.clientId,
      undefined,
      clientAuth,
    );
    for (const step of execute) step(config);
    return config;
  }

  /** The provider's authorization URL for one sign-in attempt. */
  async authorizationUrl(checks: FlowChecks): Promise<URL> {
    const config = await this.config();
    const parameters: Record<string, string> = {
      redirect_uri: this.redirectUri,
      response_type: 'code',
      state: checks.state,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    };
    if (this.settings.scopes.length > 0) parameters.scope = this.settings.scopes.join(' ');
    if (checks.nonce) parameters.nonce = checks.nonce;
    return oidc.buildAuthorizationUrl(config, parameters);
  }

  /**
   * Exchange the code (checking state, PKCE and, for OpenID Connect, the ID token and its nonce),
   * then read the profile. The access token is used here and dropped: it is never stored.
   */
  async exchange(callbackUrl: URL, checks: FlowChecks): Promise<SocialProfile> {
    const config = await this.config();
    if (!this.isOpenIdConnect) {
      // Without an issuer identifier there is nothing to check an `iss` parameter against.
      callbackUrl.searchParams.delete('iss');
    }
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: this.isOpenIdConnect,
    });
    if (this.isOpenIdConnect) return this.openIdProfile(config, tokens);
    return this.oauthProfile(config, tokens.access_token);
  }

  private async openIdProfile(
    config: oidc.Configuration,
    tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>,
  ): Promise<SocialProfile> {
    const claims: Record<string, unknown> = { ...tokens.claims() };
    const subject = String(claims.sub);
    if (config.serverMetadata().userinfo_endpoint) {
      // The UserInfo answer must be about the same subject as the ID token (checked by the library).
      Object.assign(claims, await oidc.fetchUserInfo(config, tokens.access_token, subject));
    }
    return profileFromClaims(subject, claims);
  }

  private async oauthProfile(config: oidc.Configuration, accessToken: string): Promise<SocialProfile> {
    const url = this.settings.userinfoUrl;
    if (!url) throw new Error(`provider ${this.id} has no userinfo URL`);
    const profile = await this.getJson(config, accessToken, url);
    if (!profile || typeof profile !== 'object' || Array.isArray(profile))
      throw new Error('unexpected profile response');
    const claims = profile as Record<string, unknown>;
    const subjectValue = claims.sub ?? claims.id;
    if (typeof subjectValue !== 'string' && typeof subjectValue !== 'number')
      throw new Error('the profile has no subject');
    const result = profileFromClaims(String(subjectValue), claims);
    if (this.id === 'github') {
      // GitHub's /user email is just the public one; only the emails endpoint says what is verified.
      // https://api.github.com/user -> .../user/emails (GitHub Enterprise's /api/v3/user alike).
      const emails = await this.getJson(config, accessToken, `${url.replace(/\/+$/, '')}/emails`);
      const primary = Array.isArray(emails)
        ? (emails as { email?: unknown; primary?: unknown; verified?: unknown }[]).find(
            (e) => e.primary === true && e.verified === true && typeof e.email === 'string',
          )
        : undefined;
      result.email = primary ? (primary.email as string) : null;
      result.emailVerified = Boolean(primary);
    }
    return result;
  }

  private async getJson(config: oidc.Configuration, accessToken: string, url: string): Promise<unknown> {
    const headers = new Headers({ accept: 'application/json', 'user-agent': 'Citadel' });
    const response = await oidc.fetchProtectedResource(
      config,
      accessToken,
      new URL(url),
      'GET',
      null,
      headers,
    );
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    return response.json();
  }
}

/** Standard claims (OpenID Connect) or a provider's JSON profile, mapped the same way. */
export function profileFromClaims(subject: string, claims: Record<string, unknown>): SocialProfile {
  const email = text(claims.email) ?? null;
  const hints = [
    text(claims.preferred_username),
    text(claims.login),
    text(claims.nickname),
    text(claims.name),
    [text(claims.given_name), text(claims.family_name)].filter(Boolean).join(' ') || undefined,
    email ? email.split('@')[0] : undefined,
  ].filter((h): h is string => Boolean(h));
  return {
    subject,
    email,
    emailVerified: email !== null && isTrue(claims.email_verified),
    usernameHints: hints,
  };
}

/** The configured providers by id; each one's redirect URI is `${appUrl}/oauth/callback/${id}`. */
export class SocialProviders {
  private readonly byId = new Map<string, SocialProvider>();

  constructor(providers: OAuthProviderConfig[], appUrl: string) {
    const base = appUrl.replace(/\/+$/, '');
    for (const settings of providers) {
      this.byId.set(settings.id, new SocialProvider(settings, `${base}/oauth/callback/${settings.id}`));
    }
  }

  get(id: string): SocialProvider | undefined {
    return this.byId.get(id);
  }
}
