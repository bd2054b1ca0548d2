// Run time: every backticked path in a question's text is resolved against the prepared Evidence before the round.
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  AssessmentRecords,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  Likelihood,
  judgmentEntities,
} from 'nestjs-judgment';
import { MissingEvidencePath } from 'nestjs-judgment/testing';

@Judgment({ name: 'names-missing-path' })
class NamesMissingPath implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { request: { reason: Evidence.untrusted(this.text) } };
  }
  questions() {
    return {
      credible: Likelihood.that('Is `request.explanation` credible?'),
      polite: Likelihood.that('Is `request.reason` polite?'),
    };
  }
}

@Judgment({ name: 'names-present-path' })
class NamesPresentPath implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { request: { explanation: Evidence.untrusted(this.text) } };
  }
  questions() {
    return { credible: Likelihood.that('Is `request.explanation` credible?') };
  }
}

async function app(strictEvidencePaths: boolean) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: judgmentEntities,
        synchronize: true,
      }),
      JudgmentModule.forRoot({ engine: 'mock', engines: { mock: { driver: 'mock' } }, strictEvidencePaths }),
      JudgmentModule.forFeature([NamesMissingPath, NamesPresentPath]),
    ],
  }).compile();
  return moduleRef.init();
}

describe('backticked Evidence paths at run time', () => {
  let warn: jest.SpyInstance;
  const pathWarnings = () =>
    warn.mock.calls.filter(([line]) => /Evidence path the Evidence does not have/.test(JSON.stringify(line)));

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('a missing path: the round still goes out, one warning per Judgment × path, and the record notes the path', async () => {
    const nest = await app(false);
    try {
      const judge = nest.get(Judge);
      const first = await judge.assess(new NamesMissingPath('I was away.'));
      await judge.assess(new NamesMissingPath('Again.'));
      expect(first.likelihood('credible').probability).toBeGreaterThanOrEqual(0);
      expect(pathWarnings()).toHaveLength(1);
      // Nest's default logger gets one line of key=value pairs.
      expect(pathWarnings()[0][0]).toContain('judgment=names-missing-path key=credible path=request.explanation');
      const records = await nest.get(AssessmentRecords).answered({ judgment: NamesMissingPath });
      expect(records).toHaveLength(2);
      for (const record of records) {
        expect(record.provenanceDetails).toMatchObject({ missingEvidencePaths: ['request.explanation'] });
        expect(record.provenanceDetails).toHaveProperty('usage');
      }
    } finally {
      await nest.close();
    }
  });

  it('a path the Evidence has: no warning, nothing noted', async () => {
    const nest = await app(false);
    try {
      await nest.get(Judge).assess(new NamesPresentPath('I was away.'));
      expect(pathWarnings()).toHaveLength(0);
      const [record] = await nest.get(AssessmentRecords).answered({ judgment: NamesPresentPath });
      expect(record.provenanceDetails).not.toHaveProperty('missingEvidencePaths');
    } finally {
      await nest.close();
    }
  });

  it('strictEvidencePaths: the round is refused with MissingEvidencePath naming the key and path; nothing is asked', async () => {
    const nest = await app(true);
    try {
      const judge = nest.get(Judge);
      const refused = judge.assess(new NamesMissingPath('I was away.'));
      await expect(refused).rejects.toThrow(MissingEvidencePath);
      await expect(refused).rejects.toThrow(
        /"request\.explanation" is missing, but Question "credible" of names-missing-path/,
      );
      expect(judge.usage()).toBe(0);
      expect(await nest.get(AssessmentRecords).answered({ judgment: NamesMissingPath })).toHaveLength(0);
      await judge.assess(new NamesPresentPath('Fine.'));
      expect(judge.usage()).toBeGreaterThan(0);
    } finally {
      await nest.close();
    }
  });
});
