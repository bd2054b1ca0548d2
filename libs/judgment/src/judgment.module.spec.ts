// Nest conventions of the module: like @nestjs/typeorm, the root module's core is global, so a feature module that
// imports JudgmentModule.forFeature([...]) can inject the Judge and the other services.
import { type DynamicModule, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import * as root from 'nestjs-judgment';
import { AssessmentRecords, Judge, Judgment, JudgmentModule, Likelihood } from 'nestjs-judgment';
import { AnswerSource } from 'nestjs-judgment/testing';
import { Calibration } from 'nestjs-judgment/calibration';
import * as calibration from 'nestjs-judgment/calibration';
import * as drivers from 'nestjs-judgment/drivers';
import * as http from 'nestjs-judgment/http';
import * as testing from 'nestjs-judgment/testing';
import { JUDGMENT_EXPORTS, JudgmentCoreModule } from './judgment-core.module';

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

describe('the module split', () => {
  const core = () => JudgmentModule.forRoot({ engine: 'mock', engines: { mock: { driver: 'mock' } } }).imports?.[0];

  it('imports a global core module, as @nestjs/typeorm does, that exports the services of JUDGMENT_EXPORTS', () => {
    const root = JudgmentModule.forRoot({});
    expect(root.module).toBe(JudgmentModule);
    expect(root.providers ?? []).toEqual([]);
    expect(core()).toMatchObject({ module: JudgmentCoreModule, global: true, exports: [...JUDGMENT_EXPORTS] });
  });

  it('exports by DI exactly the services the entry points export: each one injectable, none left out', () => {
    const exported = new Set<unknown>(
      [root, calibration, drivers, testing, http].flatMap((entry) => Object.values(entry as Record<string, unknown>)),
    );
    for (const service of JUDGMENT_EXPORTS)
      expect({ service: service.name, exported: exported.has(service) }).toEqual({
        service: service.name,
        exported: true,
      });
    const provided = ((core() as DynamicModule).providers ?? []).map((provider) =>
      typeof provider === 'function' ? provider : (provider as { provide: unknown }).provide,
    );
    // AnswerSource is the Engine boundary's seam: tests override it (overrideProvider); nobody injects it.
    const injectable = provided.filter((token) => exported.has(token) && token !== AnswerSource);
    expect(injectable.map((token) => (token as Function).name).sort()).toEqual(
      JUDGMENT_EXPORTS.map((service) => service.name).sort(),
    );
  });
});
