import { Type } from '@sinclair/typebox';
import {
  ValidationError,
  coreMessages,
  publicUser,
  type UserRecord,
  defineEndpoint,
  Envelope,
  PublicUserSchema,
} from '../../plugin-api.ts';
import { accountPage } from './pages.ts';
import { accountPageProps } from './account-page-props.ts';
import { accountCenterMessages } from './messages/index.ts';

/** The user as the account endpoints show it: with the language chosen for the account (or null). */
export const AccountUserSchema = Type.Composite([
  PublicUserSchema,
  Type.Object({
    locale: Type.Union([Type.String(), Type.Null()], {
      description: 'The language the account reads Citadel in (a tag such as `de`); null: the request’s',
    }),
  }),
]);

export function accountUser(user: UserRecord) {
  return { ...publicUser(user), locale: user.locale };
}

/**
 * PATCH /account: the account's language (`locale`), one of the server's languages, or null to
 * let each request choose again. Pages, answers and emails to the account follow it. The account
 * page's form posts to POST /account/locale, where an empty choice is null.
 */
export const changeLocaleEndpoint = defineEndpoint({
  method: 'PATCH',
  path: '/account',
  aliases: [{ method: 'POST', path: '/account/locale' }],
  action: 'account.locale',
  auth: 'session',
  bearer: false,
  summary: 'Choose the language of the account (null: the request’s)',
  body: Type.Object({
    locale: Type.Union([Type.String({ maxLength: 35 }), Type.Null()], {
      description: 'A language tag, or null (the form sends an empty text for null)',
    }),
  }),
  responses: { 200: Envelope({ fields: { user: AccountUserSchema } }) },
  page: accountPage,
  pageProps: accountPageProps,
  async handler(request) {
    const { body, caller, services } = request;
    const wanted = body.locale;
    const locale =
      wanted === null || wanted === undefined || wanted === '' ? null : services.languages.find(wanted);
    if (locale === undefined)
      throw new ValidationError({
        locale: coreMessages.text('invalid.language', { available: services.languages.tags }),
      });
    await services.db
      .updateTable('users')
      .set({ locale, updated_at: services.clock.now().toISOString() })
      .where('id', '=', caller.user.id)
      .execute();
    const updated = { ...caller.user, locale };
    request.caller = { ...caller, user: updated };
    return {
      status: 'success',
      message: accountCenterMessages.text('answer.localeChanged'),
      fields: { user: accountUser(updated) },
      redirect_to: '/account',
    };
  },
});
