/** `nestjs-judgment/simulator`: the Jev wire on loopback, for development, tests and benchmarks. */
export {
  JevSimulator,
  DEFAULT_JEV_MODEL,
  DEFAULT_RELEASE_DATE,
  JEV_ALIASES,
  LAYA_MODEL,
  LAYA_CHECKPOINTS,
  type LayaCheckpoint,
} from './jev-simulator';
export { startJevSimulator, type RunningJevSimulator, type StartJevSimulatorOptions } from './start-jev-simulator';
export type {
  DisconnectFault,
  DropAnswerFault,
  ErrorFault,
  Fault,
  HangFault,
  JevSimulatorOptions,
  LoggedRequest,
  MalformedFault,
  MalformedVariant,
  ModelInfo,
  NoiseProfile,
  RetryableFault,
  SimulatorMode,
  SimulatorNoise,
  StatusFault,
} from './simulator.types';
export { NOISE_PROFILES } from './answer-noise';
export { parseSteering, type Steering, type SteerTarget } from './simulated-answers';
export {
  OpenAiSimulator,
  startOpenAiSimulator,
  DEFAULT_OPENAI_MODEL,
  OPENAI_ALIASES,
  MAX_TOP_LOGPROBS,
  type OpenAiDialect,
  type OpenAiFault,
  type OpenAiSimulatorOptions,
  type OpenAiStatusFault,
  type RunningOpenAiSimulator,
  type StartOpenAiSimulatorOptions,
} from './openai-simulator';
export { OPENAI_BEHAVIOURS, type OpenAiBehaviour } from './openai-answers';
