import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { Judge } from '../judge/judge.service';
import { JUDGMENT_OPTIONS_TYPE } from '../judgment.module-definition';
import { JudgmentModule } from '../judgment.module';
import { FakeJudge } from './fake-judge';
import type { JudgmentScripts } from './scripts';

/** Options of `JudgmentTestingModule.forRoot()`: the JudgmentModule's options and extras, plus the fake's scripts. */
export type JudgmentTestingOptions = typeof JUDGMENT_OPTIONS_TYPE & {
  /** What the fake Judge answers, keyed by Judgment name. */
  scripts?: JudgmentScripts;
};

/**
 * Stands in for `JudgmentModule.forRoot()` in tests: the same module (recorder, Decider, events, dispatcher,
 * persistence as configured), with a FakeJudge as the Judge, so every Engine connection is prevented. Inject the fake
 * as `FakeJudge` (or `Judge`) for its assertions.
 */
@Module({})
export class JudgmentTestingModule {
  static forRoot({ scripts = {}, ...options }: JudgmentTestingOptions = {}): DynamicModule {
    const definition = JudgmentModule.forRoot(options);
    const fake = new FakeJudge(scripts);
    return {
      ...definition,
      module: JudgmentTestingModule,
      providers: [
        ...(definition.providers ?? []).filter((provider) => !providesJudge(provider)),
        { provide: Judge, useValue: fake },
        { provide: FakeJudge, useExisting: Judge },
      ],
      exports: [...(definition.exports ?? []), FakeJudge],
    };
  }
}

function providesJudge(provider: Provider): boolean {
  return provider === Judge || (typeof provider === 'object' && provider !== null && provider.provide === Judge);
}
