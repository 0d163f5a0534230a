import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The two-factor plugin's catalog (`factors.<key>`). */
export const factorsMessages = defineMessages('factors', en, { de, fr, ar });
