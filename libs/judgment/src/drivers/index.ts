// `nestjs-judgment/drivers`: what an Engine driver's author needs. Applications import from `nestjs-judgment`.
export type { Engine, EngineRequest, EngineResponse, EngineAnswer } from '../engines/engine.interface';
export type { Question } from '../questions/question';
export { Provenance } from '../assessment/provenance';
export type { EngineConnectionOptions, ConnectionLimits, ConnectionPrice } from '../judgment.options';
export {
  EngineManager,
  isPinnedModel,
  type EngineFactory,
  type EngineFactoryContext,
  type EngineConnectionStatus,
} from '../engines/engine.manager';
export { fenceUntrustedText, FENCE_PREFACE } from '../engines/jev/fence';
export { JevEngine, DEFAULT_JEV_URL } from '../engines/jev/jev.engine';
export {
  OpenAiEngine,
  DEFAULT_OPENAI_URL,
  DEFAULT_TOP_LOGPROBS,
  DEFAULT_MIN_COVERAGE,
  DEFAULT_MAX_CONCURRENCY,
} from '../engines/openai/openai.engine';
export {
  optionDistribution,
  foldToken,
  type OptionDistribution,
  type TokenLogprob,
} from '../engines/openai/option-distribution';
export { MockEngine, DEFAULT_MOCK_MODEL } from '../engines/mock/mock.engine';
// The failures a driver throws (EngineFailed, EngineRateLimited and EngineBudgetExhausted also from the root, where
// applications catch them), and the configuration errors of a connection's options.
export {
  EngineFailed,
  MalformedEngineResponse,
  EngineRejectedRequest,
  EngineUnauthorized,
  EngineRateLimited,
  EngineOverloaded,
  EngineBudgetExhausted,
  EngineNotConfigured,
  UnpinnedModel,
  InvalidConfiguration,
  InvalidRateLimit,
  InvalidPrice,
} from '../errors';
