import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The sudo plugin's catalog (`sudo.<key>`). */
export const sudoMessages = defineMessages('sudo', en, { de, fr, ar });
