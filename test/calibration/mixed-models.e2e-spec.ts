// The drift guard over a round whose Questions were answered by different models (the `openai` driver asks each
// Question in its own request, and a deployment can move between two of them). Every answering model is checked
// against the lock, not only the first; the record keeps each Question's model. On PostgreSQL, with a driver class
// at the Engine boundary that reports a model per Question.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  AssessmentDecided,
  AssessmentRecord,
  AwaitingReview,
  CalibrationDrifted,
  Judge,
  JudgmentModule,
} from 'nestjs-judgment';
import { type Engine, type EngineRequest, type EngineResponse, Provenance } from 'nestjs-judgment/drivers';
import { Calibration, CalibrationLock, LabelledCase, lockCalibration } from 'nestjs-judgment/calibration';
import { recordDetail } from '../../libs/judgment/src/records/record.view';
import { freshDatabase, postgres } from './production.fixtures';
import { ClaimOutcome, TwoPartClaim } from './two-part-claim.fixtures';

const DATABASE = 'judgment_calib_mixed_models';
const LOCKED = 'gpt-4o-mini-2024-07-18';
const OTHER = 'gpt-4o-2099-01-01';

/** Answers each Question in its own "request": `fraud` by the locked model, `urgent` by `PerQuestionEngine.urgent`. */
class PerQuestionEngine implements Engine {
  static urgentModel = LOCKED;

  model(): string {
    return LOCKED;
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    const answers: Record<string, number> = {};
    const models: Record<string, string> = {};
    for (const key of request.questions.keys()) {
      answers[key] = 0.1;
      models[key] = key === 'urgent' ? PerQuestionEngine.urgentModel : LOCKED;
    }
    return { answers, provenance: new Provenance('mixed', models.fraud, null, {}, models) };
  }
}

/** What the app's listeners saw. */
class Seen {
  readonly drifted: CalibrationDrifted[] = [];
  readonly decided: AssessmentDecided[] = [];

  @OnEvent(CalibrationDrifted.NAME)
  onDrift(event: CalibrationDrifted) {
    this.drifted.push(event);
  }

  @OnEvent(AssessmentDecided.NAME)
  onDecided(event: AssessmentDecided) {
    this.decided.push(event);
  }
}

const lockFile = join(mkdtempSync(join(tmpdir(), 'calib-mixed-')), 'judgment.lock.json');
let app: INestApplication;

async function start(lock: string | null): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({ ...postgres(DATABASE), retryAttempts: 0 }),
      EventEmitterModule.forRoot(),
      JudgmentModule.forRoot({
        engine: 'mixed',
        engines: { mixed: { driver: PerQuestionEngine } },
        log: false,
        ...(lock ? { calibration: { lock, onDrift: 'review' as const } } : {}),
      }),
      JudgmentModule.forFeature([TwoPartClaim]),
    ],
    providers: [Seen],
  }).compile();
  const started = moduleRef.createNestApplication({ logger: false });
  await started.init();
  return started;
}

async function assess(text: string) {
  const assessment = await app.get(Judge).assess(new TwoPartClaim(text));
  const decided = await assessment.outcome();
  const [record] = await app
    .get(DataSource)
    .getRepository(AssessmentRecord)
    .find({ order: { id: 'DESC' }, take: 1 });
  return { assessment, decided, record };
}

beforeAll(async () => {
  await freshDatabase(DATABASE);
  const calibrating = await start(null);
  try {
    const cases = ['Stolen bike.', 'Broken window.'].map((text) =>
      LabelledCase.of(new TwoPartClaim(text), ClaimOutcome.Approve),
    );
    const report = await calibrating.get(Calibration).for(TwoPartClaim).cases(cases).run();
    lockCalibration(CalibrationLock.empty(lockFile), report).write();
  } finally {
    await calibrating.close();
  }
  app = await start(lockFile);
});

afterEach(() => {
  PerQuestionEngine.urgentModel = LOCKED;
});

afterAll(async () => {
  await app?.close();
});

it('a round answered wholly by the locked model acts, and the record keeps the model of each Question', async () => {
  const { assessment, decided, record } = await assess('Stolen bike.');
  expect(decided).toBe(ClaimOutcome.Approve);
  expect(assessment.provenance.questionModels).toEqual({ fraud: LOCKED, urgent: LOCKED });
  expect(record.reviewRequestedAt).toBeNull();
  expect(recordDetail(record).provenance?.questionModels).toEqual({ fraud: LOCKED, urgent: LOCKED });
});

it('a round whose second Question another model answered is drift: its automatic Outcome awaits Review', async () => {
  PerQuestionEngine.urgentModel = OTHER;
  const { assessment, decided, record } = await assess('Broken window.');

  expect(assessment.provenance.model).toBe(LOCKED); // the first answer's model, as before
  expect(assessment.provenance.models()).toEqual([LOCKED, OTHER]);
  expect(decided).toBeInstanceOf(AwaitingReview);
  const awaiting = decided as AwaitingReview;
  expect(awaiting.outcome).toBe(ClaimOutcome.Approve);
  expect(awaiting.reason.cause).toBe('drift');
  expect(awaiting.reason.text).toContain(`answered urgent with the model ${OTHER}`);
  expect(awaiting.reason.text).toContain(LOCKED);

  expect(record).toMatchObject({ outcome: 'approve', reviewCause: 'drift', model: LOCKED });
  expect(record.reviewReason).toBe(awaiting.reason.text);
  expect(recordDetail(record).provenance?.questionModels).toEqual({ fraud: LOCKED, urgent: OTHER });
  expect(recordDetail(record).review).toMatchObject({ cause: 'drift', reason: awaiting.reason.text });

  const seen = app.get(Seen);
  expect(seen.drifted.map((event) => event.identity.model)).toEqual([OTHER]);
  expect(seen.decided.at(-1)).toMatchObject({ awaitsReview: true, review: { cause: 'drift' } });
});
