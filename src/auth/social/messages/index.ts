import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The social sign-in plugin's catalog (`social.<key>`). */
export const socialMessages = defineMessages('social', en, { de, fr, ar });
