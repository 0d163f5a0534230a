import { defineMessages } from '../../../plugin-api.ts';
import { ar } from './ar.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';

/** The post-sign-in pipeline's catalog (`pipeline.<key>`). */
export const pipelineMessages = defineMessages('pipeline', en, { de, fr, ar });
