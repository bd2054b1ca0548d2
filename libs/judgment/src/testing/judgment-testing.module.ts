import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { JudgmentEvent } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { AnswerSource } from '../judge/answer-source';
import { AssessmentRecords } from '../records/assessment-records.service';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { JUDGMENT_OPTIONS_TYPE } from '../judgment.module-definition';
import { JudgmentCoreModule } from '../judgment-core.module';
import { FakeJudge } from './fake-judge';
import type { JudgmentScripts } from './scripts';

/** Options of `JudgmentTestingModule.forRoot()`: the JudgmentModule's options and extras, plus the fake's scripts. */
export type JudgmentTestingOptions = typeof JUDGMENT_OPTIONS_TYPE & {
  /** What the fake Judge answers, keyed by Judgment name. */
  scripts?: JudgmentScripts;
};

/**
 * Stands in for `JudgmentModule.forRoot()` in tests: the same module (Judge, recorder, events, dispatch, persistence
 * as configured) with a FakeJudge as its AnswerSource, so every attempt is answered from scripts and no Engine
 * connection is asked. Inject the fake as `FakeJudge` for its assertions; it reads the records through
 * AssessmentRecords when asked whether a case awaits Review.
 */
@Module({})
export class JudgmentTestingModule {
  static forRoot({ scripts = {}, ...options }: JudgmentTestingOptions = {}): DynamicModule {
    const core = JudgmentCoreModule.forRoot(options);
    const fake = new FakeJudge(scripts);
    return {
      module: JudgmentTestingModule,
      imports: [
        {
          ...core,
          providers: [
            ...(core.providers ?? []).filter((provider) => !replaced(provider)),
            {
              provide: AnswerSource,
              useFactory: (records: AssessmentRecords, registry: JudgmentRegistry) =>
                fake.readRecordsFrom(records, registry),
              inject: [AssessmentRecords, JudgmentRegistry],
            },
            // An alias: the app's event listeners (the fake is one) are found once, under AnswerSource.
            { provide: FakeJudge, useExisting: AnswerSource },
            {
              // Each event reaches the fake from the publisher itself, with or without the app's EventEmitterModule.
              provide: JudgmentEventsPublisher,
              useFactory: (emitter?: EventEmitter2) => new TellingEventsPublisher(fake, emitter),
              inject: [{ token: EventEmitter2, optional: true }],
            },
          ],
          exports: [...(core.exports ?? []), FakeJudge],
        },
      ],
    };
  }
}

/** The core's providers the testing module puts its own in place of: the AnswerSource and the events publisher. */
function replaced(provider: Provider): boolean {
  if (provider === JudgmentEventsPublisher) return true;
  return (
    typeof provider === 'object' && provider !== null && 'provide' in provider && provider.provide === AnswerSource
  );
}

/** The module's events publisher in tests: tells the fake each event, then emits it to the app as usual. */
class TellingEventsPublisher extends JudgmentEventsPublisher {
  constructor(
    private readonly fake: FakeJudge,
    emitter?: EventEmitter2,
  ) {
    super(emitter);
  }

  override async emit(event: JudgmentEvent): Promise<void> {
    this.fake.hear(event);
    await super.emit(event);
  }
}
