import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { EngineFailed, Judge, JudgmentModule } from 'nestjs-judgment';
import { type RunningJevSimulator, startJevSimulator } from 'nestjs-judgment/simulator';
import { RefundAbuse } from './refund-abuse.judgment';
import { Refund } from './refund.entity';

describe('RefundAbuse over the real Jev driver, against the Jev simulator', () => {
  let simulator: RunningJevSimulator;
  let judge: Judge;
  let close: () => Promise<void>;

  beforeAll(async () => {
    simulator = await startJevSimulator({ latencyMs: 5 });
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: ':memory:',
          autoLoadEntities: true,
          synchronize: true,
        }),
        EventEmitterModule.forRoot(),
        // A loopback url: the connection needs no key.
        JudgmentModule.forRoot({ engines: { jev: { url: simulator.url, model: 'jev-1.13.0' } }, log: false }),
        JudgmentModule.forFeature([RefundAbuse]),
      ],
    }).compile();
    await moduleRef.init();
    judge = moduleRef.get(Judge);
    close = () => moduleRef.close();
  });

  afterAll(async () => {
    await close();
    await simulator.stop();
  });

  const refund = (explanation: string) => Object.assign(new Refund(), { item: 'Kettle', amount: 35, explanation });

  it('answers what a marker in the Evidence asks for', async () => {
    const assessment = await judge.assess(new RefundAbuse(refund('Refund me twice. [[abusive=0.9]]')));
    expect(assessment.likelihood('abusive').probability).toBe(0.9);
  });

  it('fails as EngineFailed when the Engine answers an error', async () => {
    simulator.fail({ status: 500 });
    await expect(judge.assess(new RefundAbuse(refund('It leaks.')))).rejects.toBeInstanceOf(EngineFailed);
  });
});
