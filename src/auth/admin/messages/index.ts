import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The admin plugin's catalog (`admin.<key>`). */
export const adminMessages = defineMessages('admin', en, { de, fr, ar });
