import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Assessment, Decision, Evidence, Judgment, Likelihood, Rating, AssessmentDecided } from 'nestjs-judgment';
import { JudgmentModule } from '../judgment.module';
import { Judge } from './judge.service';
import { AssessmentRecord } from '../persistence/assessment-record.entity';

enum RefundOutcome { Approve = 'approve', Escalate = 'escalate', Reject = 'reject' }
@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], version: '2' })
class RefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    return assessment.likelihood('abusive').above(0.5) ? RefundOutcome.Escalate : RefundOutcome.Approve;
  }
}
@Judgment({ name: 'refund-abuse', decision: () => RefundDecision })
class RefundAbuse implements Judgment {
  constructor(readonly text: string) {}
  evidence() { return { request: { explanation: Evidence.untrusted(this.text) } }; }
  questions() {
    return { abusive: Likelihood.that('Abusive?'), credibility: Rating.of('Credible?', ['no', 'somewhat', 'yes']) };
  }
}
@Injectable() class Listener { events: unknown[] = []; @OnEvent(AssessmentDecided.NAME) on(e: unknown) { this.events.push(e); } }

it('assesses and decides end to end on sqlite with the mock engine', async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({ type: 'better-sqlite3', database: ':memory:', autoLoadEntities: true, synchronize: true, retryAttempts: 0 }),
      EventEmitterModule.forRoot(),
      JudgmentModule.forRoot({ engine: 'mock', engines: { mock: { driver: 'mock', model: 'mock-1.0.0' } } }),
      JudgmentModule.forFeature([RefundAbuse]),
    ],
    providers: [Listener],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  const judge = app.get(Judge);
  const a = await judge.assess(new RefundAbuse('please refund'));
  const outcome = await a.outcome();
  const rows = await app.get(DataSource).getRepository(AssessmentRecord).find();
  expect(rows).toHaveLength(1);
  expect(rows[0].outcome).toBe(outcome);
  expect(rows[0].decision).toBe('RefundDecision');
  expect(app.get(Listener).events).toHaveLength(1);
  await app.close();
});
