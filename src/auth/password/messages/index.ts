import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The password plugin's catalog (`password.<key>`). */
export const passwordMessages = defineMessages('password', en, { de, fr, ar });
