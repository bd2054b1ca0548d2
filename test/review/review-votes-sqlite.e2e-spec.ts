// N-of-M review on SQLite: the same votes table (migration ReviewVotes1765530000000) and flow — agreement resolves,
// disagreement awaits adjudication, a reviewer votes once — without PostgreSQL's row lock.
import { Injectable } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  type Assessment,
  AssessmentRecord,
  AssessmentRecords,
  Decision,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  Likelihood,
  ResolutionForbidden,
  type ResolutionPolicy,
  type Reviewer,
  judgmentEntities,
  judgmentMigrations,
} from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';

enum Verdict {
  Keep = 'keep',
  Check = 'check',
  Drop = 'drop',
}

@Decision({ outcomes: Verdict, review: { outcomes: [Verdict.Check], reviewers: 2 }, name: 'paired-verdict' })
class PairedVerdict {
  decide(assessment: Assessment<Note>): Verdict {
    return assessment.likelihood('spam').above(0.3) ? Verdict.Check : Verdict.Keep;
  }
}

@Judgment({ name: 'note-spam', decision: () => PairedVerdict })
class Note implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { text: Evidence.untrusted(this.text) };
  }
  questions() {
    return { spam: Likelihood.that('Is this note spam?') };
  }
}

@Injectable()
class LeadAdjudicates implements ResolutionPolicy {
  canResolve(): boolean {
    return true;
  }
  canAdjudicate(reviewer: Reviewer): boolean {
    return (reviewer as { id: string }).id === 'lead';
  }
}

const KEY = 'apikey_votes_sqlite';
let sim: JevSimulator;
let app: INestApplication;
const staff = (id: string) => ({ type: 'staff', id });

beforeAll(async () => {
  sim = new JevSimulator({ apiKey: KEY });
  const url = await sim.start(0);
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: judgmentEntities,
        migrations: judgmentMigrations,
        migrationsRun: true,
      }),
      EventEmitterModule.forRoot(),
      JudgmentModule.forRoot({
        engine: 'jev',
        engines: { jev: { driver: 'jev', key: KEY, url, model: 'jev-1.13.0', retries: 0 } },
        resolutionPolicy: LeadAdjudicates,
        persistence: { retentionDays: 30 },
      }),
      JudgmentModule.forFeature([Note]),
    ],
  }).compile();
  app = moduleRef.createNestApplication({ logger: false });
  await app.init();
});

afterAll(async () => {
  await app?.close();
  await sim?.stop();
});

/** A note in Review under the 2-of-2 Decision. */
async function inReview(text: string): Promise<AssessmentRecord> {
  const assessment = await app.get(Judge).assess(new Note(`${text} [[spam=0.5]]`));
  await assessment.outcome();
  const [record] = await app
    .get(DataSource)
    .getRepository(AssessmentRecord)
    .find({ order: { id: 'DESC' }, take: 1 });
  expect(record.isAwaitingReview()).toBe(true);
  return record;
}

const records = () => app.get(AssessmentRecords);
const fresh = async (id: number) => (await records().find(id))!;

it('agreement resolves; a second vote of the same reviewer is refused; votes show once cast', async () => {
  const record = await inReview('Buy cheap watches.');
  await records().resolve(record, Verdict.Drop, staff('ann'));
  await expect(records().resolve(await fresh(record.id), Verdict.Keep, staff('ann'))).rejects.toThrow(
    /staff #ann already voted on record #\d+ \("drop"\)/,
  );
  expect(await records().reviewVotes(await fresh(record.id), staff('bob'))).toMatchObject({ cast: 1, votes: null });
  const resolved = await records().resolve(await fresh(record.id), Verdict.Drop, staff('bob'));
  expect([resolved.resolution, resolved.resolverId]).toEqual(['drop', 'bob']);
  const view = await records().reviewVotes(resolved, null);
  expect(view?.votes?.map((vote) => [vote.reviewer.id, vote.outcome, vote.createdAt instanceof Date])).toEqual([
    ['ann', 'drop', true],
    ['bob', 'drop', true],
  ]);
});

it('disagreement awaits adjudication; only the lead settles it; the figures count the pair', async () => {
  const record = await inReview('Meeting at noon.');
  await records().resolve(record, Verdict.Keep, staff('ann'));
  const after = await records().resolve(await fresh(record.id), Verdict.Drop, staff('bob'));
  expect(after.isResolved()).toBe(false);
  await expect(records().resolve(after, Verdict.Keep, staff('carol'))).rejects.toThrow(ResolutionForbidden);
  const settled = await records().resolve(after, Verdict.Keep, staff('lead'));
  expect([settled.resolution, settled.resolverId]).toEqual(['keep', 'lead']);
  const { judgments, pairs } = await records().reviewerAgreement();
  expect(judgments).toEqual([{ judgment: 'note-spam', records: 2, pairs: 2, rawAgreement: 0.5, kappa: 0 }]);
  expect(pairs).toEqual([expect.objectContaining({ reviewers: ['staff #ann', 'staff #bob'], pairs: 2 })]);
});

it('two last votes at once on SQLite: one completes the count, the other is refused; the case is settled once', async () => {
  for (let round = 0; round < 5; round++) {
    const record = await inReview(`Concurrent ${round}.`);
    await records().resolve(record, Verdict.Drop, staff('ann'));
    const [x, y] = [await fresh(record.id), await fresh(record.id)];
    const results = await Promise.allSettled([
      records().resolve(x, Verdict.Drop, staff('bob')),
      records().resolve(y, round % 2 ? Verdict.Drop : Verdict.Keep, staff('cat')),
    ]);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect(String(refused[0].reason)).toMatch(/already resolved|awaits adjudication/);
    const view = (await records().reviewVotes(await fresh(record.id), null))!;
    expect(view.cast).toBe(2);
    // Settled once: resolved by two agreeing votes, or awaiting adjudication — never two agreeing votes unresolved.
    const agreeing = new Set(view.votes!.map((vote) => vote.outcome)).size === 1;
    expect((await fresh(record.id)).isResolved()).toBe(agreeing);
    expect(view.needsAdjudication).toBe(!agreeing);
  }
});

it('prune() deletes the votes cast before the retention with their records, on SQLite too', async () => {
  const record = await inReview('Old note.');
  await records().resolve(record, Verdict.Drop, staff('ann'));
  const dataSource = app.get(DataSource);
  const old = "datetime('now', '-31 days')";
  await dataSource.query(`UPDATE judgment_assessments SET created_at = ${old} WHERE id = ?`, [record.id]);
  await dataSource.query(`UPDATE judgment_review_votes SET created_at = ${old} WHERE record_id = ?`, [record.id]);
  const count = async () =>
    ((await dataSource.query('SELECT count(*) AS n FROM judgment_review_votes')) as { n: number }[])[0].n;
  const before = await count();
  await expect(records().prune()).resolves.toBe(1);
  expect(await count()).toBe(before - 1);
});
