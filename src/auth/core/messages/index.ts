import { defineMessages } from '../../../core/i18n/catalog.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The auth core's catalog: input validation, password rules, sudo and the security notices. */
export const authMessages = defineMessages('auth', en, { de, fr, ar });
