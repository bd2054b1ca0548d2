// The README's examples are the files of this folder: the README shows each one verbatim, and this suite runs them
// (SQLite in memory and the Jev simulator over loopback HTTP; the queue and data-source examples on PostgreSQL and
// Redis, as they are written for).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type INestApplication,
  type INestApplicationContext,
  Injectable,
  type MiddlewareConsumer,
  Module,
  type NestMiddleware,
  type NestModule,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { getRepositoryToken, TypeOrmModule } from '@nestjs/typeorm';
import {
  AssessmentRecord,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  judgmentEntities,
  judgmentOptionsFromEnv,
  Likelihood,
  ResolutionForbidden,
} from 'nestjs-judgment';
import { Calibration, CalibrationLock, lockCalibration } from 'nestjs-judgment/calibration';
import { EngineManager } from 'nestjs-judgment/drivers';
import request from 'supertest';
import { DataSource, type Repository } from 'typeorm';
import * as ts from 'typescript';
import { JevSimulator, startOpenAiSimulator } from 'nestjs-judgment/simulator';
import { freshCloneEnv, run } from '../demo/support';
import { waitFor } from '../http/support';
import { databaseUrl, recreateDatabase } from '../support/postgres';
import { REDIS_URL, clearPrefix } from '../support/redis';
import { Refund } from './refund.entity';

const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const KEY = 'readme-suite-key';
const DATABASE = 'judgment_readme';

/** The README's TypeScript and JSON blocks. */
const blocks = [...README.matchAll(/```(?:ts|json)\n([\s\S]*?)```/g)].map((match) => match[1]);
/** The example files of this folder (everything but this suite; an example that is a test runs as its own suite). */
const examples = readdirSync(__dirname).filter((file) => file !== 'readme.e2e-spec.ts');
/** The examples of "Testing your Judgments", run by test/testing/readme-examples.e2e-spec.ts and their own tests. */
const testingDir = join(ROOT, 'test', 'testing', 'readme');
const testingExamples = readdirSync(testingDir).filter((file) => file.endsWith('.ts'));

describe('the README', () => {
  it.each(examples)('shows %s verbatim', (file) => {
    expect(blocks).toContain(readFileSync(join(__dirname, file), 'utf8'));
  });

  it.each(testingExamples)('shows the testing example %s verbatim', (file) => {
    expect(blocks).toContain(readFileSync(join(testingDir, file), 'utf8'));
  });

  it('every TypeScript and JSON block is an example file that runs', () => {
    const files = [
      ...examples.map((file) => readFileSync(join(__dirname, file), 'utf8')),
      ...testingExamples.map((file) => readFileSync(join(testingDir, file), 'utf8')),
    ];
    expect(blocks.filter((block) => !files.includes(block))).toEqual([]);
  });
});

describe("the README's Installation (issue 31)", () => {
  const installation = README.slice(
    README.indexOf('\n## Installation\n'),
    README.indexOf('\n### Jest in a Nest 12 app\n'),
  );
  const installLines = [...installation.matchAll(/^npm install [^\n]*$/gm)].map(([line]) => line);

  it("installs what the review HTTP adapter needs on its line: its peers and Nest's HTTP platform", () => {
    const http = installLines.find((line) => line.includes('review HTTP adapter'));
    expect(http).toBeDefined();
    // The adapter's peers (http/peers.ts), and the platform NestFactory.create() needs to serve it.
    for (const needed of ['class-validator', 'class-transformer', '@nestjs/platform-express@12']) {
      expect(http!.split(/\s+/)).toContain(needed);
    }
  });

  it("is the package README's too: npm shows the same install commands, and the same words about a missing peer", () => {
    const packageReadme = readFileSync(join(ROOT, 'libs', 'judgment', 'README.md'), 'utf8');
    const packageLines = [...packageReadme.matchAll(/^npm install [^\n]*$/gm)].map(([line]) => line);
    expect(packageLines).toEqual(installLines);
    const prose = packageReadme.replace(/\s+/g, ' ');
    expect(prose).toContain("`Cannot find module '@nestjs/bullmq'`");
    expect(prose).toContain('`@nestjs/platform-express`');
  });

  it("the package README's service handles AwaitingReview before it acts on the Outcome (issue 27.1)", () => {
    const packageReadme = readFileSync(join(ROOT, 'libs', 'judgment', 'README.md'), 'utf8');
    const services = [...packageReadme.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map(([, code]) => code)
      .filter((code) => code.includes('.outcome'));
    expect(services).toHaveLength(1);
    const [service] = services;
    expect(service).toMatch(/import \{[^}]*\bAwaitingReview\b[^}]*\} from 'nestjs-judgment'/);
    const decided = service.indexOf('.outcome<PostOutcome>()');
    const handled = service.indexOf('if (decided instanceof AwaitingReview) return');
    const acted = service.indexOf('return decided;');
    expect(decided).toBeGreaterThan(-1);
    expect(handled).toBeGreaterThan(decided);
    expect(acted).toBeGreaterThan(handled);
    expect(packageReadme).not.toMatch(/`await \(await judge\.assess\([^`]*\)\)\.outcome\(\)`/);
  });

  it('says that without @nestjs/bullmq the app fails on its own import before the library can say anything', () => {
    const prose = installation.replace(/\s+/g, ' ');
    expect(prose).toContain('imports `BullModule` from `@nestjs/bullmq` itself');
    expect(prose).toContain("`Cannot find module '@nestjs/bullmq'` — before nestjs-judgment can say anything");
  });
});

describe('the README examples', () => {
  const sim = new JevSimulator({ apiKey: KEY });
  let env: jest.ReplaceProperty<NodeJS.ProcessEnv> | undefined;
  let app: INestApplication;

  beforeAll(async () => {
    const url = await sim.start(0);
    env = jest.replaceProperty(
      process,
      'env',
      freshCloneEnv({
        TYPESAFE_API_KEY: KEY,
        TYPESAFE_BASE_URL: url,
        SQLITE_PATH: ':memory:',
        JUDGMENT_LOG: 'false',
        JUDGMENT_JEV_RETRIES: '0',
      }),
    );
    const { AppModule } = await import('./app.module');
    app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
    await app.init();
  });

  afterEach(() => sim.clearFaults());

  afterAll(async () => {
    await app?.close();
    await sim.stop();
    env?.restore();
  });

  const refunds = () => app.get<Repository<Refund>>(getRepositoryToken(Refund));

  it('app.module, the refund Judgment, Decision, service and listener: approve, pending (in Review), reject', async () => {
    const { RefundRequests } = await import('./refund-requests.service');
    const service = app.get(RefundRequests);
    const cases = [
      ['It stopped charging after a week. [[abusive=0.05]] [[credibility=3:0.85]]', 'approve', 'approved'],
      ['It does not fit; I wore it once. [[abusive=0.45]] [[credibility=2:0.6]]', 'pending', 'in_review'],
      ['Refund me twice or else. [[abusive=0.9]] [[credibility=0:0.8]]', 'reject', 'rejected'],
    ];
    const created: Refund[] = [];
    for (const [explanation, outcome, status] of cases) {
      const refund = await service.create({ item: 'Kettle', amount: 35, explanation });
      created.push(refund);
      expect(await service.decide(refund)).toBe(outcome);
      expect((await refunds().findOneByOrFail({ id: refund.id })).status).toBe(status);
    }
    const record = await app
      .get(DataSource)
      .getRepository(AssessmentRecord)
      .findOneByOrFail({ subjectType: 'Refund', subjectId: String(created[0].id) });
    expect(record).toMatchObject({ judgment: 'refund-abuse', language: 'en', untrustedPaths: ['request.explanation'] });
  });

  it('refund-requests.service: an Engine failure leaves the refund pending, recorded as Unassessed', async () => {
    const { RefundRequests } = await import('./refund-requests.service');
    const service = app.get(RefundRequests);
    const refund = await service.create({ item: 'Kettle', amount: 35, explanation: 'It leaks.' });
    sim.fail({ status: 500 });
    expect(await service.decide(refund)).toBe('pending');
    const records = app.get(DataSource).getRepository(AssessmentRecord);
    expect((await records.findOneByOrFail({ subjectId: String(refund.id) })).failureType).toBe('EngineFailed');
  });

  it('lenient-refund-requests.service: with throwOnFailure off a failure comes back as Unassessed', async () => {
    const { LenientRefundRequests } = await import('./lenient-refund-requests.service');
    @Module({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: ':memory:',
          entities: [Refund, ...judgmentEntities],
          synchronize: true,
        }),
        JudgmentModule.forRoot({ ...judgmentOptionsFromEnv(process.env), throwOnFailure: false }),
      ],
      providers: [LenientRefundRequests],
    })
    class LenientModule {}
    const lenient = await NestFactory.createApplicationContext(LenientModule, { logger: false });
    try {
      const refund = Object.assign(new Refund(), { id: 1, item: 'Kettle', amount: 35, explanation: 'It leaks.' });
      sim.fail({ status: 503 });
      expect(await lenient.get(LenientRefundRequests).decide(refund)).toEqual({
        unassessed: 'EngineFailed',
        record: 1,
      });
    } finally {
      await lenient.close();
    }
  });

  it('judgment-types.d.ts: the augmentation types judge.assess() as Assessment | Unassessed', () => {
    const augmentation = join(__dirname, 'judgment-types.d.ts');
    const proof = join(__dirname, 'judgment-types.proof.ts');
    const sources: Record<string, string> = {
      [augmentation]: readFileSync(join(__dirname, 'judgment-types.d.ts.example'), 'utf8'),
      [proof]: [
        "import type { AssessResult, Unassessed } from 'nestjs-judgment';",
        "import type { RefundAbuse } from './refund-abuse.judgment';",
        'type MayBeUnassessed = Unassessed<RefundAbuse, any> extends AssessResult<RefundAbuse> ? true : false;',
        'export const proof: MayBeUnassessed = true;',
      ].join('\n'),
    };
    const config = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: () => undefined,
      },
    )!;
    const host = ts.createCompilerHost(config.options);
    const read = host.readFile.bind(host);
    host.readFile = (file) => sources[file] ?? read(file);
    const exists = host.fileExists.bind(host);
    host.fileExists = (file) => file in sources || exists(file);
    const program = ts.createProgram([augmentation, proof], { ...config.options, noEmit: true }, host);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  });

  it('ticket-routing and reading: the escape option, Confidence, a Rating, and a cached repeat', async () => {
    const { TicketRouting, Route } = await import('./ticket-routing');
    const { describeTicket } = await import('./reading');
    const judge = app.get(Judge);
    const ticket = { subject: 'Charged twice', body: 'Two charges for March. [[team=billing:0.9]] [[severity=1:0.7]]' };
    const assessment = await judge.assess(new TicketRouting(ticket));
    expect(await assessment.outcome()).toBe(Route.Billing);
    expect(describeTicket(assessment)).toEqual({
      team: 'billing',
      billing: true,
      none: expect.any(Number),
      teamConfidence: expect.any(Number),
      severity: 'Minor',
      expectedSeverity: expect.any(Number),
      serious: false,
      model: 'jev-1.13.0',
    });
    const dog = await judge.assess(new TicketRouting({ subject: 'Dog', body: 'Which breed? [[team=none:0.85]]' }));
    expect(describeTicket(dog).team).toBeNull();
    expect(await dog.outcome()).toMatchObject({ outcome: Route.Triage, reason: { cause: 'band' } });

    const requests = sim.requestCount;
    await judge.assess(new TicketRouting(ticket));
    expect(sim.requestCount).toBe(requests); // cacheFor: answered from the cache, recorded again
    const records = app.get(DataSource).getRepository(AssessmentRecord);
    const [latest] = await records.find({ where: { judgment: 'ticket-routing' }, order: { id: 'DESC' }, take: 1 });
    expect(latest.cachedFromId).not.toBeNull();
  });

  it('post-moderation and reading: a Likelihood Set', async () => {
    const { PostModeration, Moderation } = await import('./post-moderation');
    const { describePost } = await import('./reading');
    const judge = app.get(Judge);
    const spam = await judge.assess(new PostModeration('CHEAP FOLLOWERS!!! [[harms.spam=0.95]] [[p=0.05]]'));
    expect(describePost(spam)).toEqual({ spam: 0.95, worst: 0.95, flagged: ['spam'] });
    expect(await spam.outcome()).toBe(Moderation.Remove);
    const rude = await judge.assess(new PostModeration('You are clueless. [[harms.harassment=0.6]] [[p=0.1]]'));
    expect(await rude.outcome()).toMatchObject({ outcome: Moderation.Hold, reason: { cause: 'band' } });
  });

  it('judgment.config and keyword.engine: written-out options and a custom driver', async () => {
    const { judgmentOptions } = await import('./judgment.config');
    @Judgment({ name: 'chargeback-threat', engine: 'keywords' })
    class ChargebackThreat implements Judgment {
      constructor(readonly text: string) {}
      evidence() {
        return { message: Evidence.untrusted(this.text) };
      }
      questions() {
        return { threat: Likelihood.that('Does the customer threaten a chargeback?') };
      }
    }
    @Module({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: ':memory:',
          entities: judgmentEntities,
          synchronize: true,
        }),
        JudgmentModule.forRoot({ ...judgmentOptions, log: false }),
      ],
    })
    class ConfiguredModule {}
    const configured = await NestFactory.createApplicationContext(ConfiguredModule, { logger: false });
    try {
      const assessment = await configured.get(Judge).assess(new ChargebackThreat('I will file a chargeback today.'));
      expect(assessment.likelihood('threat').probability).toBe(0.9);
      expect(assessment.provenance).toMatchObject({ engine: 'keywords', model: 'keywords-1.0.0' });
      expect(configured.get(EngineManager).describe('jev')).toMatchObject({ pinned: true, budget: 2_000_000 });
    } finally {
      await configured.close();
    }
  });

  it('openai.config: OpenAI, Azure, vLLM, llama.cpp and Ollama connections; the default one asked over HTTP', async () => {
    const openai = await startOpenAiSimulator({ apiKey: KEY, model: 'gpt-4o-mini-2024-07-18' });
    Object.assign(process.env, {
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: openai.url,
      AZURE_OPENAI_API_KEY: 'azure-test-key',
    });
    let configured: INestApplicationContext | undefined;
    try {
      const { openAiOptions } = await import('./openai.config');
      @Judgment({ name: 'refund-note' })
      class RefundNote implements Judgment {
        constructor(readonly text: string) {}
        evidence() {
          return { message: Evidence.untrusted(this.text) };
        }
        questions() {
          return { refund: Likelihood.that('Does the customer ask for a refund?') };
        }
      }
      @Module({
        imports: [
          TypeOrmModule.forRoot({
            type: 'better-sqlite3',
            database: ':memory:',
            entities: judgmentEntities,
            synchronize: true,
          }),
          JudgmentModule.forRoot({ ...openAiOptions, log: false }),
        ],
      })
      class OpenAiModule {}
      configured = await NestFactory.createApplicationContext(OpenAiModule, { logger: false, abortOnError: false });
      const assessment = await configured.get(Judge).assess(new RefundNote('Please refund me. [[refund=0.85]]'));
      expect(assessment.likelihood('refund').probability).toBeCloseTo(0.85, 9);
      expect(assessment.provenance).toMatchObject({ engine: 'openai', model: 'gpt-4o-mini-2024-07-18' });
      expect(assessment.provenance.details.coverage).toEqual({ refund: expect.any(Number) });
      const engines = configured.get(EngineManager);
      for (const name of ['azure', 'vllm', 'llamacpp', 'ollama']) {
        expect(engines.describe(name)).toMatchObject({ driver: 'openai', configured: true });
      }
    } finally {
      await configured?.close();
      await openai.stop();
      for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AZURE_OPENAI_API_KEY']) delete process.env[name];
    }
  });

  it('claim-cascade: the small model decides what it is sure of, Jev what it leaves in its band, a person the rest', async () => {
    const openai = await startOpenAiSimulator({ apiKey: KEY, model: 'gpt-4o-mini-2024-07-18' });
    Object.assign(process.env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: openai.url });
    let cascading: INestApplicationContext | undefined;
    try {
      const { ClaimCheck, ClaimOutcome, cascadeOptions } = await import('./claim-cascade');
      @Module({
        imports: [
          TypeOrmModule.forRoot({
            type: 'better-sqlite3',
            database: ':memory:',
            entities: judgmentEntities,
            synchronize: true,
          }),
          JudgmentModule.forRoot({ ...cascadeOptions(process.env), log: false }),
          JudgmentModule.forFeature([ClaimCheck]),
        ],
      })
      class CascadeModule {}
      cascading = await NestFactory.createApplicationContext(CascadeModule, { logger: false, abortOnError: false });
      const judge = cascading.get(Judge);
      const asked = () => ({
        small: openai.requests.filter((r) => r.path === '/v1/chat/completions').length,
        jev: sim.requests.filter((r) => r.path === '/v1/systemone').length,
      });
      const before = asked();
      const decide = async (text: string) => (await judge.assess(new ClaimCheck(text))).outcome();

      expect(await decide('My bike was stolen at the station. [[fraud=0.02]]')).toBe(ClaimOutcome.Pay);
      expect(asked()).toEqual({ small: before.small + 1, jev: before.jev });
      expect(await decide('Water damage, no photos, claimed twice. [[fraud=0.8]]')).toBe(ClaimOutcome.Refuse);
      expect(asked()).toEqual({ small: before.small + 2, jev: before.jev + 1 });
      expect(await decide('Lost luggage, receipts missing. [[fraud=0.5]]')).toMatchObject({
        outcome: ClaimOutcome.Check,
        reason: { cause: 'band' },
      });
      expect(asked()).toEqual({ small: before.small + 3, jev: before.jev + 2 });
      const records = await cascading
        .get(DataSource)
        .getRepository(AssessmentRecord)
        .find({ where: { judgment: 'claim-check' }, order: { id: 'ASC' } });
      expect(records.map((r) => [r.engine, r.outcome, r.reviewRequestedAt === null])).toEqual([
        ['small', 'pay', true],
        ['small', 'check', true],
        ['jev', 'refuse', true],
        ['small', 'check', true],
        ['jev', 'check', false],
      ]);
    } finally {
      await cascading?.close();
      await openai.stop();
      for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL']) delete process.env[name];
    }
  });

  it('calibrate-refunds and the dataset: a report per source', async () => {
    const { calibrateRefunds } = await import('./calibrate-refunds');
    const { fromFile, inCode } = await calibrateRefunds(
      app.get(Calibration),
      join(__dirname, 'refund-abuse.dataset.json'),
    );
    expect(fromFile.results).toHaveLength(1);
    expect(fromFile.results[0]).toMatchObject({ cases: 2, unassessed: 0 });
    expect(fromFile.results[0].identity).toMatchObject({ decision: 'RefundDecision', decisionVersion: '2' });
    expect(inCode.results[0]).toMatchObject({ cases: 1 });
  });

  it('reviewer.policy, review-queue.service and admin.module: the Review, in code and over HTTP', async () => {
    const { ReviewerPolicy } = await import('./reviewer.policy');
    const { ReviewQueue } = await import('./review-queue.service');
    const { AdminModule } = await import('./admin.module');
    const { RefundsModule } = await import('./refunds.module');
    const { RefundRequests } = await import('./refund-requests.service');

    const roles = { current: ['reviewer'] };
    @Injectable()
    class Authentication implements NestMiddleware {
      use(req: { user?: unknown }, _res: unknown, next: () => void) {
        req.user = { type: 'staff', id: 'refunds-anna', roles: roles.current };
        next();
      }
    }
    @Module({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: ':memory:',
          entities: [Refund, ...judgmentEntities],
          synchronize: true,
        }),
        EventEmitterModule.forRoot(),
        JudgmentModule.forRoot({
          ...judgmentOptionsFromEnv(process.env),
          resolutionPolicy: ReviewerPolicy,
        }),
        RefundsModule,
        AdminModule,
      ],
      providers: [ReviewQueue],
    })
    class ReviewingModule implements NestModule {
      configure(consumer: MiddlewareConsumer) {
        consumer.apply(Authentication).forRoutes('*path');
      }
    }
    const reviewing = await NestFactory.create(ReviewingModule, { logger: false, abortOnError: false });
    await reviewing.init();
    try {
      const service = reviewing.get(RefundRequests);
      for (const explanation of ['Wore it once. [[abusive=0.45]]', 'Too small. [[abusive=0.5]]']) {
        expect(await service.decide(await service.create({ item: 'Jacket', amount: 240, explanation }))).toBe(
          'pending',
        );
      }
      const queue = reviewing.get(ReviewQueue);
      const [first, second] = await queue.waiting();
      await expect(queue.approve(first, 'support-bob')).rejects.toThrow(ResolutionForbidden);
      expect(await queue.approve(first, 'refunds-anna')).toMatchObject({
        resolution: 'approve',
        resolverId: 'refunds-anna',
      });

      const server = reviewing.getHttpServer();
      const listed = await request(server).get('/admin/judgment/reviews').expect(200);
      expect(listed.body.data.map((r: { id: number }) => r.id)).toEqual([second.id]);
      await request(server)
        .post(`/admin/judgment/records/${second.id}/resolve`)
        .send({ resolution: 'reject' })
        .expect(200);
      roles.current = [];
      await request(server).get(`/admin/judgment/records/${second.id}`).expect(403);
    } finally {
      await reviewing.close();
    }
  });

  it('cli.ts runs the judgment command line over AppModule', async () => {
    const env = freshCloneEnv({ TYPESAFE_API_KEY: KEY, SQLITE_PATH: ':memory:' });
    const { code, stdout } = await run(
      'node',
      ['-r', './scripts/register.js', 'test/readme/cli.ts', 'status', '--json'],
      env,
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ default: 'jev', configured: true });
  });
});

describe("the README's service and listener under a drifted model", () => {
  // The README's RefundRequests and RefundActions as written, in an app with the drift guard on: the Jev alias the
  // app uses moves to a model the lock does not vouch for. A case the Decision would approve must not be approved.
  const sim = new JevSimulator({ apiKey: KEY, model: 'jev-1.13.0' });
  let env: jest.ReplaceProperty<NodeJS.ProcessEnv> | undefined;
  let app: INestApplicationContext;
  const lockFile = join(mkdtempSync(join(tmpdir(), 'readme-drift-')), 'judgment.lock.json');

  beforeAll(async () => {
    const url = await sim.start(0);
    env = jest.replaceProperty(
      process,
      'env',
      freshCloneEnv({
        TYPESAFE_API_KEY: KEY,
        TYPESAFE_BASE_URL: url,
        JUDGMENT_JEV_MODEL: 'jev-latest',
        JUDGMENT_JEV_ALLOW_ALIASES: 'true',
        JUDGMENT_LOG: 'false',
        JUDGMENT_JEV_RETRIES: '0',
      }),
    );
    const { RefundsModule } = await import('./refunds.module');
    const { RefundAbuse } = await import('./refund-abuse.judgment');
    const modules = (lock: string | undefined) => {
      @Module({
        imports: [
          TypeOrmModule.forRoot({
            type: 'better-sqlite3',
            database: ':memory:',
            entities: [Refund, ...judgmentEntities],
            synchronize: true,
          }),
          EventEmitterModule.forRoot(),
          JudgmentModule.forRoot({
            ...judgmentOptionsFromEnv(process.env),
            ...(lock ? { calibration: { lock, onDrift: 'review' as const } } : {}),
          }),
          RefundsModule,
        ],
      })
      class DriftModule {}
      return DriftModule;
    };
    // Calibrate and lock under the model the alias points at today, as `judgment eval --lock` does.
    const calibrating = await NestFactory.createApplicationContext(modules(undefined), { logger: false });
    try {
      const report = await calibrating
        .get(Calibration)
        .for(RefundAbuse)
        .fromDataset(join(__dirname, 'refund-abuse.dataset.json'))
        .run();
      lockCalibration(CalibrationLock.empty(lockFile), report).write();
    } finally {
      await calibrating.close();
    }
    app = await NestFactory.createApplicationContext(modules(lockFile), { logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await sim.stop();
    env?.restore();
  });

  it('a case the Decision approves under the locked model is approved', async () => {
    const { RefundRequests } = await import('./refund-requests.service');
    const service = app.get(RefundRequests);
    const refund = await service.create({
      item: 'Kettle',
      amount: 35,
      explanation: 'Broke. [[abusive=0.05]] [[credibility=3:0.85]]',
    });
    expect(await service.decide(refund)).toBe('approve');
    const refunds = app.get<Repository<Refund>>(getRepositoryToken(Refund));
    expect((await refunds.findOneByOrFail({ id: refund.id })).status).toBe('approved');
  });

  it('after the alias moves, the same case is pending and in Review, and no automatic Action ran', async () => {
    const { RefundRequests } = await import('./refund-requests.service');
    const service = app.get(RefundRequests);
    sim.setModel('jev-1.14.0');
    try {
      const refund = await service.create({
        item: 'Kettle',
        amount: 35,
        explanation: 'Broke. [[abusive=0.05]] [[credibility=3:0.85]]',
      });
      expect(await service.decide(refund)).toBe('pending');
      const refunds = app.get<Repository<Refund>>(getRepositoryToken(Refund));
      expect((await refunds.findOneByOrFail({ id: refund.id })).status).toBe('in_review');
      const record = await app
        .get(DataSource)
        .getRepository(AssessmentRecord)
        .findOneByOrFail({ subjectType: 'Refund', subjectId: String(refund.id) });
      expect(record).toMatchObject({ outcome: 'approve', model: 'jev-1.14.0', reviewCause: 'drift' });
      expect(record.reviewReason).toContain('answered with the model jev-1.14.0');
    } finally {
      sim.setModel('jev-1.13.0');
    }
  });
});

describe('the README examples written for PostgreSQL and Redis', () => {
  const sim = new JevSimulator({ apiKey: KEY });
  let env: jest.ReplaceProperty<NodeJS.ProcessEnv> | undefined;
  const opened: INestApplicationContext[] = [];

  beforeAll(async () => {
    await recreateDatabase(DATABASE);
    await clearPrefix('refunds');
    env = jest.replaceProperty(
      process,
      'env',
      freshCloneEnv({
        TYPESAFE_API_KEY: KEY,
        TYPESAFE_BASE_URL: await sim.start(0),
        DATABASE_URL: databaseUrl(DATABASE),
        REDIS_URL,
        JUDGMENT_LOG: 'false',
      }),
    );
  });

  afterAll(async () => {
    for (const context of opened.reverse()) await context.close();
    await clearPrefix('refunds');
    await sim.stop();
    env?.restore();
  });

  it('data-source.ts runs the package migrations', async () => {
    const dataSource: DataSource = (await import('./data-source')).default;
    await dataSource.initialize();
    try {
      await dataSource.runMigrations();
      const [table] = await dataSource.query(`SELECT to_regclass('judgment_assessments') AS name`);
      expect(table.name).toBe('judgment_assessments');
    } finally {
      await dataSource.destroy();
    }
  });

  it('database.module runs the package migrations when the app starts', async () => {
    await recreateDatabase(DATABASE);
    const { DatabaseModule } = await import('./database.module');
    const app = await NestFactory.createApplicationContext(DatabaseModule, { logger: false });
    try {
      const [table] = await app.get(DataSource).query(`SELECT to_regclass('judgment_assessments') AS name`);
      expect(table.name).toBe('judgment_assessments');
    } finally {
      await app.close();
    }
  });

  it('queue.module and worker.ts: the API dispatches, the worker assesses and decides', async () => {
    // queue.module synchronizes (development only): a fresh database, not the one the migrations above made, whose
    // timestamptz columns synchronize would try to recreate (README: on PostgreSQL use the migrations).
    await recreateDatabase(DATABASE);
    const { QueuedAppModule } = await import('./queue.module');
    const { startWorker } = await import('./worker');
    const { RefundRequests } = await import('./refund-requests.service');
    const api = await NestFactory.createApplicationContext(QueuedAppModule.forRoot('api'), { logger: false });
    opened.push(api);
    const worker = await startWorker();
    opened.push(worker);
    const service = api.get(RefundRequests);
    const refund = await service.create({
      item: 'Lamp',
      amount: 39,
      explanation: 'Broken switch. [[abusive=0.05]] [[credibility=3:0.9]]',
    });
    expect(await service.decideLater(refund)).toEqual(expect.any(String));
    const refunds = api.get<Repository<Refund>>(getRepositoryToken(Refund));
    await waitFor('the worker to approve the refund', async () =>
      (await refunds.findOneByOrFail({ id: refund.id })).status === 'approved' ? true : undefined,
    );
  });
});
