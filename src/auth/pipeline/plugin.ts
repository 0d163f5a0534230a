import { definePlugin, givenOptions, pipelineClaimsMigration } from '../../plugin-api.ts';
import { pipelineEndpoints } from './routes.ts';
import { email2faAction, emailActivationAction } from './email-code.ts';
import { pipelineMessages } from './messages/index.ts';
import { PIPELINE_ID, pipelineDefaults, resolvePipelineOptions, type PipelineOptions } from './options.ts';

/**
 * The post-sign-in pipeline: the /action/* endpoints and the built-in emailed-code actions
 * (`pipeline({ codeTtlSeconds: 300 })`).
 */
export function pipeline(options: Partial<PipelineOptions> = {}) {
  return definePlugin({
    id: PIPELINE_ID,
    options: { ...pipelineDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolvePipelineOptions(options, config),
    migrations: [pipelineClaimsMigration],
    tables: ['pipeline_claims'],
    endpoints: pipelineEndpoints,
    messages: pipelineMessages,
    actions: [email2faAction, emailActivationAction],
  });
}
