import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The organizations plugin's catalog (`organizations.<key>`). */
export const organizationsMessages = defineMessages('organizations', en, { de, fr, ar });
