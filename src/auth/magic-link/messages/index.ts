import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The sign-in-by-email plugin's catalog (`magic-link.<key>`). */
export const magicLinkMessages = defineMessages('magic-link', en, { de, fr, ar });
