import { ConfigError } from '../core/errors.ts';
import type { MessageCatalog } from '../core/i18n/catalog.ts';
import { coreMessages } from '../core/i18n/messages/index.ts';
import { authMessages } from '../auth/core/messages/index.ts';
import { LanguageSettingError, Languages, type LocaleOverrides } from '../core/i18n/languages.ts';

declare module '../config/types.ts' {
  interface ExtensionSettings {
    /**
     * Added languages and replaced messages, by language then full key (`core.nav.signIn`,
     * `password.changeTitle`): `{ de: { 'core.nav.signIn': 'Einloggen' }, es: { … } }`. A key a
     * language lacks is shown in English.
     */
    locales?: LocaleOverrides;
    /** The language when nothing in the request chooses one (default `en`). */
    defaultLocale?: string;
  }
}

/** The server's languages: the core's catalog, each plugin's, then the application's `locales`. */
export function serverLanguages(
  plugins: readonly { id: string; messages?: MessageCatalog }[],
  settings: { locales?: LocaleOverrides; defaultLocale?: string },
): Languages {
  const catalogs = [
    coreMessages,
    authMessages,
    ...plugins.flatMap((plugin) => (plugin.messages ? [plugin.messages] : [])),
  ];
  const namespaces = new Set<string>();
  for (const catalog of catalogs) {
    if (namespaces.has(catalog.namespace))
      throw new ConfigError(`two message catalogs use the namespace "${catalog.namespace}"`);
    namespaces.add(catalog.namespace);
  }
  try {
    return new Languages({ catalogs, overrides: settings.locales, defaultLocale: settings.defaultLocale });
  } catch (error) {
    if (error instanceof LanguageSettingError) throw new ConfigError(error.message);
    throw error;
  }
}
