// An app whose files cannot load: its Decision lists for Review an outcome it does not have, so @Decision() throws
// while the module is required. `judgment check` reports that as the one failure.
import { Module } from '@nestjs/common';
import { Decision, JudgmentModule } from 'nestjs-judgment';

enum Verdict {
  Yes = 'yes',
  No = 'no',
}

@Decision({ outcomes: Verdict, review: ['maybe' as Verdict] })
export class InconsistentDecision {
  decide(): Verdict {
    return Verdict.No;
  }
}

@Module({
  imports: [
    JudgmentModule.forRoot({
      engine: 'mock',
      engines: { mock: { driver: 'mock' } },
      persistence: { enabled: false },
      dataSource: false,
    }),
    JudgmentModule.forFeature([InconsistentDecision]),
  ],
})
export class BrokenAppModule {}
