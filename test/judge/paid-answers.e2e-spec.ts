// No paid answer is dropped (issue 27, point 5): what the record cannot hold is refused before the Engine is asked,
// and a round that fails after some of its Questions were answered (the openai driver asks one request per Question)
// records those answers with the failure; a retry of the same Judgment asks only the others. PostgreSQL, the
// simulator's OpenAI mode over HTTP.
import { Evidence, Judgment, Likelihood } from 'nestjs-judgment';
import { type RunningOpenAiSimulator, startOpenAiSimulator } from 'nestjs-judgment/simulator';
import { InvalidJudgment } from 'nestjs-judgment/testing';
import { MalformedEngineResponse } from 'nestjs-judgment/drivers';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { PG } from '../support/postgres';
import { type Harness, SuiteDatabase, rejectionOf, startApp, testEntities } from './support';

const KEY = 'sk-proj-paid-answers-SECRET';
const MODEL = 'sim-4o-2026-09-17';
let db: SuiteDatabase;
let sim: RunningOpenAiSimulator;
let harness: Harness | undefined;

beforeAll(async () => {
  db = await SuiteDatabase.create('judgment_judge_paid_answers');
  await db.postgres.query(`CREATE TABLE documents (url varchar(1000) PRIMARY KEY, title varchar(255) DEFAULT 'x')`);
  sim = await startOpenAiSimulator({ apiKey: KEY });
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

beforeEach(async () => {
  await db.reset();
  sim.clearLog().clearFaults();
});

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Three Questions, so a round is three requests on the openai driver. */
@Judgment({ name: 'post-review' })
class PostReview implements Judgment {
  constructor(
    readonly text: string,
    readonly extra: { language?: string; subject?: object } = {},
  ) {}

  evidence() {
    return { post: Evidence.untrusted(this.text) };
  }

  questions() {
    return {
      toxic: Likelihood.that('Does the post insult someone?'),
      spam: Likelihood.that('Is the post unsolicited advertising?'),
      off: Likelihood.that('Is the post off topic for the forum?'),
    };
  }

  language() {
    return this.extra.language ?? 'en';
  }

  subject() {
    return this.extra.subject ?? null;
  }
}

/** An entity whose primary key is a long text, longer than the record's `subject_id` holds. */
@Entity({ name: 'documents' })
class Document {
  @PrimaryColumn({ type: 'varchar', length: 1000 })
  url!: string;

  @Column({ type: 'varchar', length: 255, default: 'x' })
  title!: string;
}

const TEXT = 'Buy cheap watches! [[toxic=0.1]] [[spam=0.9]] [[off=0.7]]';

const start = () =>
  startApp({
    typeOrm: TypeOrmModule.forRoot({
      ...PG,
      database: db.name,
      entities: [...testEntities, Document],
      retryAttempts: 0,
    }),
    options: {
      engine: 'openai',
      // One request at a time, so the simulator's queued faults meet the Questions in order.
      engines: {
        openai: { driver: 'openai', url: sim.url, key: KEY, model: MODEL, timeout: 2, retries: 0, maxConcurrency: 1 },
      },
    },
    judgments: [PostReview],
  });

const completions = () => sim.requests.filter((request) => request.path === '/v1/chat/completions');

describe('a round that fails after some Questions were answered', () => {
  it('records the answers paid for with the failure', async () => {
    harness = await start();
    sim.fail({ kind: 'answer' }).fail({ kind: 'omit-logprobs' });

    const error = await rejectionOf(harness.judge.assess(new PostReview(TEXT)));

    expect(error).toBeInstanceOf(MalformedEngineResponse);
    expect(completions()).toHaveLength(2);
    const [record] = await harness.records();
    expect(record.failureType).toBe('MalformedEngineResponse');
    expect(record.answers).toEqual({ toxic: expect.closeTo(0.1, 9) });
    expect(record).toMatchObject({ engine: 'openai', model: MODEL, requestId: completions()[0].requestId });
    expect(record.provenanceDetails).toMatchObject({ requestIds: { toxic: completions()[0].requestId } });
  });

  it('a retry of the same Judgment asks only the Questions not yet answered, and records all of them', async () => {
    harness = await start();
    sim.fail({ kind: 'answer' }).fail({ kind: 'omit-logprobs' });
    await rejectionOf(harness.judge.assess(new PostReview(TEXT)));
    sim.clearLog();

    const assessment = await harness.judge.assess(new PostReview(TEXT));

    expect(completions()).toHaveLength(2);
    expect(completions().map((request) => JSON.stringify(request.body))).not.toContainEqual(
      expect.stringContaining('insult'),
    );
    expect(assessment.likelihood('toxic').probability).toBeCloseTo(0.1, 9);
    expect(assessment.likelihood('spam').probability).toBeCloseTo(0.9, 9);
    expect(assessment.likelihood('off').probability).toBeCloseTo(0.7, 9);
    const [failed, answered] = await harness.records();
    expect(answered.failureType).toBeNull();
    expect(Object.keys(answered.answers ?? {}).sort()).toEqual(['off', 'spam', 'toxic']);
    expect(answered.provenanceDetails).toMatchObject({
      reused: { record: failed.id, questions: ['toxic'], model: MODEL, requestId: failed.requestId },
    });

    // Once used, the answers are not reused again: the next assessment is a round of its own.
    sim.clearLog();
    await harness.judge.assess(new PostReview(TEXT));
    expect(completions()).toHaveLength(3);
  });

  it('a retry that fails again keeps every answer paid for so far', async () => {
    harness = await start();
    sim.fail({ kind: 'answer' }).fail({ kind: 'omit-logprobs' });
    await rejectionOf(harness.judge.assess(new PostReview(TEXT)));
    sim.fail({ kind: 'answer' }).fail({ kind: 'omit-logprobs' });
    await rejectionOf(harness.judge.assess(new PostReview(TEXT)));
    sim.clearLog();

    await harness.judge.assess(new PostReview(TEXT));

    expect(completions()).toHaveLength(1);
    const records = await harness.records();
    expect(records.map((record) => Object.keys(record.answers ?? {}).sort())).toEqual([
      ['toxic'],
      ['spam', 'toxic'],
      ['off', 'spam', 'toxic'],
    ]);
  });

  it('other Evidence is another Judgment: nothing is reused', async () => {
    harness = await start();
    sim.fail({ kind: 'answer' }).fail({ kind: 'omit-logprobs' });
    await rejectionOf(harness.judge.assess(new PostReview(TEXT)));
    sim.clearLog();

    await harness.judge.assess(new PostReview(`${TEXT} Really.`));

    expect(completions()).toHaveLength(3);
  });
});

describe('what the record cannot hold is refused before the Engine is asked', () => {
  it('a Subject id longer than subject_id holds', async () => {
    harness = await start();
    const url = `https://example.com/${'a'.repeat(300)}`;
    const document = await harness.dataSource.getRepository(Document).save(Object.assign(new Document(), { url }));

    const error = await rejectionOf(harness.judge.assess(new PostReview(TEXT, { subject: document })));

    expect(error).toBeInstanceOf(InvalidJudgment);
    expect(error.message).toMatch(/post-review.*Subject id.*320 characters.*subject_id holds 255/);
    expect(completions()).toHaveLength(0);
    expect(await harness.records()).toHaveLength(0);
  });

  it('a language longer than the column holds', async () => {
    harness = await start();
    const error = await rejectionOf(harness.judge.assess(new PostReview(TEXT, { language: 'x'.repeat(256) })));
    expect(error).toBeInstanceOf(InvalidJudgment);
    expect(error.message).toMatch(/language\(\).*256 characters.*language holds 255/);
    expect(completions()).toHaveLength(0);
  });

  it('a Subject id the column holds goes out and is recorded', async () => {
    harness = await start();
    const document = await harness.dataSource
      .getRepository(Document)
      .save(Object.assign(new Document(), { url: 'd'.repeat(255) }));
    await harness.judge.assess(new PostReview(TEXT, { subject: document }));
    const [record] = await harness.records();
    expect(record).toMatchObject({ subjectType: 'Document', subjectId: 'd'.repeat(255) });
  });
});
