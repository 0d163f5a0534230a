import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The account center's catalog (`account-center.<key>`). */
export const accountCenterMessages = defineMessages('account-center', en, { de, fr, ar });
