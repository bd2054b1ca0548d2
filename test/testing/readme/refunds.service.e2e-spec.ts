import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test, type TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EngineFailed, JudgmentModule } from 'nestjs-judgment';
import { FakeJudge, JudgmentTestingModule } from 'nestjs-judgment/testing';
import { RefundAbuse, RefundOutcome } from './refund-abuse.judgment';
import { RefundsService } from './refunds.service';

describe('RefundsService', () => {
  let moduleRef: TestingModule;
  let judge: FakeJudge;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: ':memory:',
          autoLoadEntities: true,
          synchronize: true,
        }),
        EventEmitterModule.forRoot(),
        JudgmentTestingModule.forRoot({
          log: false,
          scripts: {
            'refund-abuse': (refund: RefundAbuse) =>
              refund.amount > 500 ? { abusive: 0.6, credibility: 1 } : { abusive: 0.05, credibility: 3 },
          },
        }),
        JudgmentModule.forFeature([RefundAbuse]),
      ],
      providers: [RefundsService],
    }).compile();
    await moduleRef.init();
    judge = moduleRef.get(FakeJudge);
  });

  afterEach(() => moduleRef.close());

  it('approves a small refund', async () => {
    expect(await moduleRef.get(RefundsService).review('It arrived broken.', 40)).toBe(RefundOutcome.Approve);
    judge.assertAssessed(RefundAbuse, (refund) => refund.amount === 40);
  });

  it('sends a large, doubtful refund to Review', async () => {
    expect(await moduleRef.get(RefundsService).review('It never arrived.', 900)).toBe('on-hold');
    await judge.assertAwaitingReview(RefundAbuse, (_refund, outcome) => outcome === RefundOutcome.Escalate);
  });

  it('puts the refund on hold when the Engine fails', async () => {
    judge.script('refund-abuse', () => {
      throw new EngineFailed('The Engine is unavailable.');
    });
    expect(await moduleRef.get(RefundsService).review('It arrived broken.', 40)).toBe('on-hold');
  });
});
