import { Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JudgmentModule, judgmentOptionsFromEnv } from 'nestjs-judgment';
import { fakeJudge, sequence, AnswerSource } from 'nestjs-judgment/testing';
import { RefundAbuse, RefundOutcome } from './refund-abuse.judgment';
import { RefundsService } from './refunds.service';

@Module({
  imports: [
    TypeOrmModule.forRoot({ type: 'better-sqlite3', database: ':memory:', autoLoadEntities: true, synchronize: true }),
    EventEmitterModule.forRoot(),
    JudgmentModule.forRoot({ ...judgmentOptionsFromEnv(process.env), log: false }),
    JudgmentModule.forFeature([RefundAbuse]),
  ],
  providers: [RefundsService],
})
class AppModule {}

it('the app module works with a fake Judge in place of the real one', async () => {
  const judge = fakeJudge({
    'refund-abuse': sequence({ abusive: 0.05, credibility: 3 }, { abusive: 0.95, credibility: 0 }),
  });
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
    .overrideProvider(AnswerSource)
    .useValue(judge)
    .compile();
  await moduleRef.init();

  const refunds = moduleRef.get(RefundsService);
  expect(await refunds.review('It arrived broken.', 40)).toBe(RefundOutcome.Approve);
  expect(await refunds.review('Refund me or else.', 40)).toBe(RefundOutcome.Reject);
  judge.assertNotDispatched(RefundAbuse);
  await moduleRef.close();
});
