// Nest conventions of the module: like @nestjs/typeorm, the root module's core is global, so a feature module that
// imports JudgmentModule.forFeature([...]) can inject the Judge and the other services.
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AssessmentRecords, Calibration, Judge, Judgment, JudgmentModule, Likelihood } from 'nestjs-judgment';

@Judgment({ name: 'feature-note' })
class FeatureNote implements Judgment {
  constructor(readonly note: string) {}

  evidence() {
    return { note: this.note };
  }

  questions() {
    return { flagged: Likelihood.that('Does the note break the rules?') };
  }
}

@Injectable()
class NotesService {
  constructor(
    readonly judge: Judge,
    readonly records: AssessmentRecords,
    readonly calibration: Calibration,
  ) {}

  async flagged(note: string): Promise<number> {
    return (await this.judge.assess(new FeatureNote(note))).likelihood('flagged').probability;
  }
}

@Module({ imports: [JudgmentModule.forFeature([FeatureNote])], providers: [NotesService] })
class NotesModule {}

it('a service of a feature module injects Judge, AssessmentRecords and Calibration and assesses its Judgment', async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        autoLoadEntities: true,
        synchronize: true,
      }),
      JudgmentModule.forRoot({ engine: 'mock', engines: { mock: { driver: 'mock' } }, log: false }),
      NotesModule,
    ],
  }).compile();
  const app = await moduleRef.init();
  try {
    const notes = app.get(NotesService);
    expect(notes.records).toBeInstanceOf(AssessmentRecords);
    expect(notes.calibration).toBeInstanceOf(Calibration);
    const probability = await notes.flagged('Buy cheap watches!');
    expect(probability).toBeGreaterThanOrEqual(0);
    expect(await notes.records.answered({ judgment: FeatureNote })).toHaveLength(1);
  } finally {
    await app.close();
  }
});
