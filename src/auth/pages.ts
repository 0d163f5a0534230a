import type { SafeHtml } from '../core/html.ts';
import type { PageContext, PageRenderer } from '../http/response/respond.ts';
import { errorPage } from '../http/html/error-page.ts';
import { ConfigError } from '../core/errors.ts';
import { homePage } from './accounts/home-page.ts';
import {
  forgotPasswordPage,
  loginPage,
  registerPage,
  resetPasswordPage,
  type ResetPasswordPageProps,
  type SignInPageProps,
} from './accounts/pages.ts';
import { magicLinkPage, magicLinkSentPage, type MagicLinkSentPageProps } from './magic-link/pages.ts';
import { setPasswordPage, type SetPasswordPageProps } from './password/pages.ts';
import { pipelinePage, type PipelinePageProps } from './pipeline/pages.ts';
import { twoFactorPage, type TwoFactorPageProps } from './factors/pages.ts';
import { sudoPage, type SudoPageProps } from './sudo/pages.ts';
import { tokensPage, type TokensPageProps } from './tokens/pages.ts';
import {
  accountPage,
  deleteAccountPage,
  emailVerifyPage,
  eventsPage,
  sessionsPage,
  type AccountPageProps,
} from './account-center/pages.ts';

/*
 * The page registry: every built-in page by name, with the props its route loads. An application
 * (`pages` in the config) or a plugin (its `pages` field) replaces any of them by name; the
 * routes keep naming the built-in renderer and `renderPage` swaps in the replacement.
 */

/** Props of a page whose route loads nothing beyond the request's outcome (`ctx.outcome`). */
export type NoPageProps = Record<string, never>;

export type {
  AccountPageProps,
  MagicLinkSentPageProps,
  PipelinePageProps,
  ResetPasswordPageProps,
  SetPasswordPageProps,
  SignInPageProps,
  SudoPageProps,
  TokensPageProps,
  TwoFactorPageProps,
};

/** Each built-in page's name and the props (`ctx.props`) its route gives it. */
export interface PageProps {
  /** `/`: the signed-in user's start page, or links to sign in. */
  home: NoPageProps;
  /** `/login`: the sign-in form (its passkey button needs the built-in scripts). */
  login: SignInPageProps;
  /** `/register`. */
  register: SignInPageProps;
  /** `/forgot-password`. */
  forgot_password: NoPageProps;
  /** `/reset-password?token=`. */
  reset_password: ResetPasswordPageProps;
  /** `/magic-link`: the request form. */
  magic_link: NoPageProps;
  /** After a magic link was asked for. */
  magic_link_sent: MagicLinkSentPageProps;
  /** `/set-password`. */
  set_password: SetPasswordPageProps;
  /** `/action/show`: the current post-sign-in step (email code, two-factor, custom actions). */
  action: PipelinePageProps;
  /** `/two-factor`: the two-factor settings. */
  two_factor: TwoFactorPageProps;
  /** `/sudo`: confirm it is you. */
  sudo: SudoPageProps;
  /** `/tokens`: personal access tokens. */
  tokens: TokensPageProps;
  /** `/account`. */
  account: AccountPageProps;
  /** `/account/delete`. */
  delete_account: AccountPageProps;
  /**
   * `/account/email/verify/{token}`: the confirmation form (`ctx.outcome.data.new_email`,
   * `ctx.outcome.fields.token`), or why the link cannot be used.
   */
  email_verify: NoPageProps;
  /** `/sessions`: the sessions are in `ctx.outcome.data.sessions`. */
  sessions: NoPageProps;
  /** `/account/events`. */
  events: AccountPageProps;
  /** Any error a form client sees without a page of its own (404, 429, ...). */
  error: NoPageProps;
}

/** The name of a built-in page. */
export type PageName = keyof PageProps;

/** A page that replaces the built-in one of that name: a function of the same context. */
export type PageReplacement<K extends PageName> = (
  ctx: PageContext<PageProps[K]>,
) => SafeHtml | Promise<SafeHtml>;

/** `pages: { login: (ctx) => html... }`: the pages an application or a plugin replaces, by name. */
export type PageReplacements = { [K in PageName]?: PageReplacement<K> };

/** The built-in pages by name, for a replacement that wraps the original (each is synchronous). */
export const builtInPages: { readonly [K in PageName]: (ctx: PageContext<PageProps[K]>) => SafeHtml } = {
  home: homePage,
  login: loginPage,
  register: registerPage,
  forgot_password: forgotPasswordPage,
  reset_password: resetPasswordPage,
  magic_link: magicLinkPage,
  magic_link_sent: magicLinkSentPage,
  set_password: setPasswordPage,
  action: pipelinePage,
  two_factor: twoFactorPage,
  sudo: sudoPage,
  tokens: tokensPage,
  account: accountPage,
  delete_account: deleteAccountPage,
  email_verify: emailVerifyPage,
  sessions: sessionsPage,
  events: eventsPage,
  error: errorPage,
};

declare module './core/plugin.ts' {
  interface CitadelPlugin {
    /** Built-in pages this plugin replaces, by name (`login`, `register`, ...; see `PageProps`). */
    pages?: PageReplacements;
  }
}

declare module '../config/types.ts' {
  interface ExtensionSettings {
    /** Built-in pages replaced by the application, by name (they win over plugins' replacements). */
    pages?: PageReplacements;
  }
}

/**
 * Built-in renderer to its replacement: the plugins' `pages` in plugin order, then the
 * configuration's, each later one winning. An unknown page name stops start-up.
 */
export function pageReplacements(
  plugins: readonly { id: string; pages?: PageReplacements }[],
  configured: PageReplacements | undefined,
): Map<PageRenderer, PageRenderer> {
  const replacements = new Map<PageRenderer, PageRenderer>();
  const sources: [string, PageReplacements | undefined][] = [
    ...plugins.map((plugin): [string, PageReplacements | undefined] => [
      `plugin "${plugin.id}"`,
      plugin.pages,
    ]),
    ['the configuration', configured],
  ];
  for (const [source, pages] of sources) {
    for (const [name, replacement] of Object.entries(pages ?? {})) {
      if (!Object.hasOwn(builtInPages, name))
        throw new ConfigError(
          `${source} replaces an unknown page "${name}" (known: ${Object.keys(builtInPages).join(', ')})`,
        );
      if (typeof replacement !== 'function')
        throw new ConfigError(`${source}: the replacement of page "${name}" must be a function`);
      replacements.set(builtInPages[name as PageName] as PageRenderer, replacement as PageRenderer);
    }
  }
  return replacements;
}
