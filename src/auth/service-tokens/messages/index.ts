import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The service-tokens plugin's catalog (`service-tokens.<key>`). */
export const serviceTokensMessages = defineMessages('service-tokens', en, { de, fr, ar });
