import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The OAuth provider's catalog (`oauth-provider.<key>`). */
export const oauthProviderMessages = defineMessages('oauth-provider', en, { de, fr, ar });
