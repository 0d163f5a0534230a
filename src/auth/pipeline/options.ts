import { type CitadelConfig, type CitadelServices, checkInteger, pluginOptions } from '../../plugin-api.ts';

/** The pipeline plugin's id. */
export const PIPELINE_ID = 'pipeline';

/**
 * `pipeline(options)`: the emailed codes of the built-in actions (`email_2fa`,
 * `email_activation`) and the wrong proofs a pending sign-in may spend. Every field optional.
 */
export interface PipelineOptions {
  /** How long an emailed 6-digit code works, in seconds (default 600). */
  codeTtlSeconds: number;
  /** At most one new code per this many seconds (default 30). */
  codeResendIntervalSeconds: number;
  /** Wrong proofs before the pending sign-in is wiped (default 5). */
  maxCodeAttempts: number;
}

export const pipelineDefaults: Readonly<PipelineOptions> = {
  codeTtlSeconds: 10 * 60,
  codeResendIntervalSeconds: 30,
  maxCodeAttempts: 5,
};

/** Given options over the defaults. */
export function resolvePipelineOptions(
  given: Partial<PipelineOptions>,
  _config: CitadelConfig,
): PipelineOptions {
  return {
    codeTtlSeconds: checkInteger(
      'pipeline',
      'codeTtlSeconds',
      given.codeTtlSeconds ?? pipelineDefaults.codeTtlSeconds,
      1,
    ),
    codeResendIntervalSeconds: checkInteger(
      'pipeline',
      'codeResendIntervalSeconds',
      given.codeResendIntervalSeconds ?? pipelineDefaults.codeResendIntervalSeconds,
      0,
    ),
    maxCodeAttempts: checkInteger(
      'pipeline',
      'maxCodeAttempts',
      given.maxCodeAttempts ?? pipelineDefaults.maxCodeAttempts,
      1,
    ),
  };
}

/** The options the pipeline plugin runs with. */
export function pipelineOptions(services: CitadelServices): PipelineOptions {
  return pluginOptions<PipelineOptions>(services, PIPELINE_ID) ?? pipelineDefaults;
}
