import { Logger } from '@nestjs/common';
import { EngineManager } from './engines/engine.manager';
import { resolveJudgmentOptions } from './judgment.options';
import { judgmentOptionsFromEnv } from './judgment.env';

const connections = (env: Record<string, string>) => Object.keys(judgmentOptionsFromEnv(env).engines ?? {});

describe('judgmentOptionsFromEnv: the connections the environment names', () => {
  it('configures only the default connection under NODE_ENV=production: no laya, no warning, no problem', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const options = judgmentOptionsFromEnv({ NODE_ENV: 'production', TYPESAFE_API_KEY: 'sk-live-key' });
      expect(Object.keys(options.engines ?? {})).toEqual(['jev']);

      const manager = new EngineManager(resolveJudgmentOptions(options));
      const problems = Object.keys(options.engines ?? {}).map((name) => manager.describe(name).problem);
      expect(problems).toEqual([null]);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('adds the laya connection when a LAYA_* or JUDGMENT_LAYA_* variable is set', () => {
    expect(connections({ LAYA_BASE_URL: 'http://laya.internal:8000' })).toEqual(['jev', 'laya']);
    expect(connections({ LAYA_API_KEY: 'laya-key' })).toEqual(['jev', 'laya']);
    expect(connections({ JUDGMENT_LAYA_MODEL: 'multilingual' })).toEqual(['jev', 'laya']);
  });

  it('configures the connection JUDGMENT_ENGINE names, and jev only when a jev variable names it', () => {
    expect(connections({ JUDGMENT_ENGINE: 'laya' })).toEqual(['laya']);
    expect(connections({ JUDGMENT_ENGINE: 'mock' })).toEqual(['mock']);
    expect(connections({ JUDGMENT_ENGINE: 'mock', TYPESAFE_BASE_URL: 'http://127.0.0.1:4010' })).toEqual([
      'jev',
      'mock',
    ]);
    expect(connections({ JUDGMENT_ENGINE: 'laya', JUDGMENT_JEV_MODEL: 'jev-1.14.0' })).toEqual(['jev', 'laya']);
  });

  it('gives every configured connection the JUDGMENT_BUDGET', () => {
    const { engines } = judgmentOptionsFromEnv({ JUDGMENT_BUDGET: '500', LAYA_BASE_URL: 'http://127.0.0.1:8000' });
    expect([engines?.jev?.budget, engines?.laya?.budget]).toEqual([500, 500]);
  });
});
