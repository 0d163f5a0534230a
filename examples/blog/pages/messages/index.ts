import { defineMessages } from '../../../../src/plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The blog pages' catalog (`blog.<key>`). */
export const blogMessages = defineMessages('blog', en, { de, fr, ar });
