import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The accounts plugin's catalog (`accounts.<key>`). */
export const accountsMessages = defineMessages('accounts', en, { de, fr, ar });
