import { definePlugin } from '../../plugin.ts';
import { pipelineEndpoints } from './routes.ts';
import { pipelineClaimsMigration } from '../core/claims.ts';
import { email2faAction, emailActivationAction } from './email-code.ts';

/** The post-sign-in pipeline: the /action/* endpoints and the built-in emailed-code actions. */
export const pipelinePlugin = definePlugin({
  name: 'pipeline',
  migrations: [pipelineClaimsMigration],
  endpoints: pipelineEndpoints,
  actions: [email2faAction, emailActivationAction],
});
