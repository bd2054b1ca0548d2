// Issue 27.1 and 27.2 from the caller's side, with the real openai driver over HTTP: the driver asks each Question in
// its own request, and a deployment that moves between two models mid-round answers the second Question as another
// model. A proxy in front of the OpenAI-mode simulator reports that other model for the `urgent` Question only. The
// drift guard checks every answering model against the lock, so the round's automatic Outcome awaits Review; the
// reason (cause `drift`) reaches the caller, the PostgreSQL record, the events, the JSON API, the review page in
// Chromium and `judgment explain`, which also names each Question's model.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { Browser } from 'playwright-core';
import {
  AssessmentRecord,
  AwaitingReview,
  CalibrationDrifted,
  Judge,
  JudgmentModule,
  ReviewRequested,
} from 'nestjs-judgment';
import { Calibration, CalibrationLock, LabelledCase, lockCalibration } from 'nestjs-judgment/calibration';
import { JudgmentHttpModule } from 'nestjs-judgment/http';
import { startOpenAiSimulator, type RunningOpenAiSimulator } from 'nestjs-judgment/simulator';
import { runBin } from '../cli/cli-process';
import { launchChromium } from '../support/browser';
import { PG } from '../support/postgres';
import { freshDatabase, postgres } from './production.fixtures';
import { ClaimOutcome, TwoPartClaim, URGENT } from './two-part-claim.fixtures';

const DATABASE = 'judgment_calib_mixed_openai';
const KEY = 'sk-mixed-openai-e2e-key';
const LOCKED = 'gpt-4o-mini-2024-07-18';
const OTHER = 'gpt-4o-2099-01-01';

/** What the app's listeners saw. */
class Seen {
  readonly drifted: CalibrationDrifted[] = [];
  readonly reviews: ReviewRequested[] = [];

  @OnEvent(CalibrationDrifted.NAME)
  onDrift(event: CalibrationDrifted) {
    this.drifted.push(event);
  }

  @OnEvent(ReviewRequested.NAME)
  onReview(event: ReviewRequested) {
    this.reviews.push(event);
  }
}

/**
 * Forwards every request to the simulator; while `moved` is on, the answer to the `urgent` Question reports `OTHER`
 * as its model (a deployment whose second request landed on a newer model).
 */
class MovingDeployment {
  moved = false;
  readonly answeredAs: string[] = [];
  private server!: Server;

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) {
            headers[name] = value;
          }
        }
        void fetch(`${this.target}${req.url}`, { method: req.method, headers, body: body === '' ? undefined : body })
          .then(async (answer) => {
            let text = await answer.text();
            if (this.moved && answer.ok && body.includes(URGENT)) {
              text = JSON.stringify({ ...JSON.parse(text), model: OTHER });
            }
            const model = (JSON.parse(text) as { model?: string }).model;
            if (model) this.answeredAs.push(model);
            const out: Record<string, string> = {};
            answer.headers.forEach((value, name) => {
              if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) {
                out[name] = value;
              }
            });
            res.writeHead(answer.status, out).end(text);
          })
          .catch((error: Error) => res.writeHead(502).end(error.message));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const lockFile = join(mkdtempSync(join(tmpdir(), 'calib-mixed-openai-')), 'judgment.lock.json');
let sim: RunningOpenAiSimulator;
let deployment: MovingDeployment;
let proxyUrl: string;
let app: INestApplication;
let base: string;
let browser: Browser | undefined;

async function start(lock: string | null): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({ ...postgres(DATABASE), retryAttempts: 0 }),
      EventEmitterModule.forRoot(),
      JudgmentModule.forRoot({
        engine: 'openai',
        engines: {
          openai: { driver: 'openai', url: `${proxyUrl}/v1`, key: KEY, model: LOCKED, timeout: 5, retries: 0 },
        },
        log: false,
        ...(lock ? { calibration: { lock, onDrift: 'review' as const } } : {}),
      }),
      JudgmentModule.forFeature([TwoPartClaim]),
      JudgmentHttpModule.forRoot({ canView: () => true, ui: true }),
    ],
    providers: [Seen],
  }).compile();
  const started = moduleRef.createNestApplication({ logger: false });
  await started.init();
  return started;
}

/** The README's service pattern: Review first, then the Outcome acts. */
async function refundService(text: string): Promise<{ acted: ClaimOutcome | 'pending'; decided: unknown }> {
  const assessment = await app.get(Judge).assess(new TwoPartClaim(text));
  const decided = await assessment.outcome<ClaimOutcome>();
  if (decided instanceof AwaitingReview) return { acted: 'pending', decided };
  return { acted: decided, decided };
}

async function latest(): Promise<AssessmentRecord> {
  const [record] = await app
    .get(DataSource)
    .getRepository(AssessmentRecord)
    .find({ order: { id: 'DESC' }, take: 1 });
  return record;
}

beforeAll(async () => {
  await freshDatabase(DATABASE);
  sim = await startOpenAiSimulator({ apiKey: KEY, model: LOCKED });
  deployment = new MovingDeployment(sim.root);
  proxyUrl = await deployment.start();
  const calibrating = await start(null);
  try {
    const cases = ['Stolen bike. [[fraud=0.1]] [[urgent=0.1]]', 'Broken window. [[fraud=0.1]] [[urgent=0.1]]'].map(
      (text) => LabelledCase.of(new TwoPartClaim(text), ClaimOutcome.Approve),
    );
    const report = await calibrating.get(Calibration).for(TwoPartClaim).cases(cases).run();
    lockCalibration(CalibrationLock.empty(lockFile), report).write();
  } finally {
    await calibrating.close();
  }
  app = await start(lockFile);
  await app.listen(0, '127.0.0.1');
  base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
});

afterEach(() => {
  deployment.moved = false;
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await deployment?.stop();
  await sim?.stop();
});

it('a round the locked model answered wholly acts, and the record keeps each Question’s model', async () => {
  const { acted } = await refundService('Lost luggage. [[fraud=0.1]] [[urgent=0.1]]');
  expect(acted).toBe(ClaimOutcome.Approve);
  const record = await latest();
  expect(record.reviewRequestedAt).toBeNull();
  expect(record.provenanceDetails).toMatchObject({ questionModels: { fraud: LOCKED, urgent: LOCKED } });
});

describe('a round whose second Question another model answered (openai driver, real HTTP)', () => {
  let record: AssessmentRecord;
  let decided: unknown;

  beforeAll(async () => {
    deployment.moved = true;
    const served = deployment.answeredAs.length;
    const result = await refundService('Flooded kitchen. [[fraud=0.1]] [[urgent=0.1]]');
    expect(deployment.answeredAs.slice(served)).toEqual([LOCKED, OTHER]); // the server's own words, per request
    // The README's service pattern takes no automatic action: the case awaits Review.
    expect(result.acted).toBe('pending');
    decided = result.decided;
    record = await latest();
  });

  it('resolves to AwaitingReview with cause drift, naming the Question and the model outside the lock', () => {
    expect(decided).toBeInstanceOf(AwaitingReview);
    const awaiting = decided as AwaitingReview<ClaimOutcome>;
    expect(awaiting.outcome).toBe(ClaimOutcome.Approve);
    expect(awaiting.is('drift')).toBe(true);
    expect(awaiting.reason.text).toContain(`answered urgent with the model ${OTHER}`);
    expect(awaiting.recordId).toBe(record.id);
  });

  it('the record holds the reason and every Question’s model; the events carry the cause', () => {
    expect(record).toMatchObject({ outcome: 'approve', reviewCause: 'drift' });
    expect(record.reviewRequestedAt).not.toBeNull();
    expect(record.reviewReason).toContain(OTHER);
    expect(record.provenanceDetails).toMatchObject({ questionModels: { fraud: LOCKED, urgent: OTHER } });
    const seen = app.get(Seen);
    expect(seen.drifted.map((event) => event.identity.model)).toContain(OTHER);
    expect(seen.reviews.at(-1)).toMatchObject({ reason: { cause: 'drift' } });
    expect(seen.reviews.at(-1)?.record?.id).toBe(record.id);
  });

  it('the JSON API gives the cause, the reason and each Question’s model', async () => {
    const response = await request(app.getHttpServer()).get(`/judgment/records/${record.id}`).expect(200);
    expect(response.body).toMatchObject({
      id: record.id,
      outcome: 'approve',
      state: 'awaiting_review',
      reviewCause: 'drift',
      review: { cause: 'drift', reason: record.reviewReason },
      provenance: { questionModels: { fraud: LOCKED, urgent: OTHER } },
    });
  });

  it('the review page shows why the case is in Review, in a real browser', async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${base}/judgment/desk/records/${record.id}`);
    const why = await page.locator('section.why').innerText();
    expect(why).toMatch(/drift/i);
    expect(why).toContain(OTHER);
  });

  it('judgment explain names the cause and the model of each Question', async () => {
    const run = await runBin(
      ['--app', 'test/cli/check-schema.module.ts#CheckSchemaModule', 'explain', String(record.id)],
      { JUDGMENT_TEST_PG_PORT: String(PG.port), CHECK_SCHEMA_DATABASE: DATABASE },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Review: requested \S+ \(.*drift.*\)\n/i);
    expect(run.stdout).toContain(`Why: ${record.reviewReason}`);
    expect(run.stdout).toContain(`Models by Question:\n  fraud: ${LOCKED}\n  urgent: ${OTHER}\n`);
  });
});
