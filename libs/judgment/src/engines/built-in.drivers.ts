import type { EngineFactory } from '../judgment.options';
import { DEFAULT_JEV_URL, JevEngine } from './jev/jev.engine';
import { MockEngine } from './mock/mock.engine';
import { DEFAULT_OPENAI_URL, OpenAiEngine } from './openai/openai.engine';

/** A driver that ships with the package: how it builds a connection's Engine, and where it sends requests by default. */
export interface BuiltInDriver {
  readonly factory: EngineFactory;
  /** The URL a connection without `url` asks; null for a driver without a network. */
  readonly url: string | null;
}

/** The built-in drivers by name: `jev` (also serves Laya), `openai` and `mock`. */
export const BUILT_IN_DRIVERS: Readonly<Record<string, BuiltInDriver>> = Object.freeze({
  jev: {
    factory: (config, { name, shutdown }) => JevEngine.connect(name, config, undefined, shutdown),
    url: DEFAULT_JEV_URL,
  },
  openai: {
    factory: (config, { name, shutdown }) => OpenAiEngine.connect(name, config, undefined, shutdown),
    url: DEFAULT_OPENAI_URL,
  },
  mock: {
    factory: (config) =>
      new MockEngine(typeof config.model === 'string' && config.model !== '' ? config.model : undefined),
    url: null,
  },
});
