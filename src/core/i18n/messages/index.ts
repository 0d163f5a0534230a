import { defineMessages } from '../catalog.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The core's catalog: its languages are the ones Citadel ships (`en`, `de`, `fr`, `ar`). */
export const coreMessages = defineMessages('core', en, { de, fr, ar });
