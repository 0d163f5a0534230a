import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The personal access tokens plugin's catalog (`tokens.<key>`). */
export const tokensMessages = defineMessages('tokens', en, { de, fr, ar });
