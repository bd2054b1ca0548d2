// Configuration from the environment (SPEC §4) and the SPEC's "done when": an app configured from env assesses a
// Judgment end to end into PostgreSQL over HTTP to the Jev simulator.
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import {
  type Assessment,
  Judge,
  JudgmentModule,
  type JudgmentModuleOptions,
  judgmentOptionsFromEnv,
  judgmentQueueAttemptsFromEnv,
} from 'nestjs-judgment';
import { type JevSimulator, startJevSimulator } from 'nestjs-judgment/simulator';
import { InvalidConfiguration } from 'nestjs-judgment/testing';
import {
  API_KEY,
  MODEL,
  Refund,
  RefundAbuse,
  SuiteDatabase,
  aRefund,
  compileApp,
  decisionRequests,
  rejectionOf,
  startSimulator,
  typeOrmRoot,
} from './support';

type Env = Record<string, string>;

const DEFAULTS: JudgmentModuleOptions = {
  engine: 'jev',
  engines: {
    jev: {
      driver: 'jev',
      key: null,
      url: 'https://api.typesafe.ai',
      model: 'jev-1.13.0',
      allowAliases: false,
      timeout: 10,
      retries: 3,
      budget: null,
      limits: null,
    },
  },
  throwOnFailure: true,
  persistence: { enabled: true, required: true, evidence: true, retentionDays: 365 },
  log: true,
  strictEvidencePaths: false,
  maxEvidenceBytes: 1_048_576,
  environment: undefined,
};

/** Variable, value, where it lands (a path into the options, or `queue.` + a queue attempts field), expected value. */
const VARIABLES: Array<[string, string, string, unknown]> = [
  ['JUDGMENT_ENGINE', 'laya', 'engine', 'laya'],
  ['TYPESAFE_API_KEY', 'sk-live', 'engines.jev.key', 'sk-live'],
  ['TYPESAFE_BASE_URL', 'http://127.0.0.1:9999', 'engines.jev.url', 'http://127.0.0.1:9999'],
  ['JUDGMENT_JEV_MODEL', 'jev-1.14.2', 'engines.jev.model', 'jev-1.14.2'],
  ['JUDGMENT_JEV_ALLOW_ALIASES', 'true', 'engines.jev.allowAliases', true],
  ['JUDGMENT_JEV_TIMEOUT', '2.5', 'engines.jev.timeout', 2.5],
  ['JUDGMENT_JEV_RETRIES', '0', 'engines.jev.retries', 0],
  ['LAYA_API_KEY', 'laya-key', 'engines.laya.key', 'laya-key'],
  ['LAYA_BASE_URL', 'http://laya.internal:8000', 'engines.laya.url', 'http://laya.internal:8000'],
  ['JUDGMENT_LAYA_MODEL', 'multilingual', 'engines.laya.model', 'multilingual'],
  ['JUDGMENT_LAYA_ALLOW_ALIASES', 'yes', 'engines.laya.allowAliases', true],
  ['JUDGMENT_LAYA_MAX_LABELS', '32', 'engines.laya.maxLabels', 32],
  ['JUDGMENT_BUDGET', '50000', 'engines.jev.budget', 50_000],
  ['JUDGMENT_JEV_LIMIT_REQUESTS', '1200/min', 'engines.jev.limits.requestsPerMinute', 1200],
  ['JUDGMENT_LAYA_LIMIT_TOKENS', '5/s', 'engines.laya.limits.tokensPerMinute', 300],
  ['JUDGMENT_JEV_LIMIT_WINDOW', '10', 'engines.jev.limits.windowSeconds', 10],
  ['JUDGMENT_LIMIT_MAX_WAIT', '2', 'limiter.maxWait', 2],
  ['JUDGMENT_THROW_ON_FAILURE', 'false', 'throwOnFailure', false],
  ['JUDGMENT_QUEUE_TRIES', '4', 'queue.attempts', 4],
  ['JUDGMENT_QUEUE_DECIDE_TRIES', '5', 'queue.decideAttempts', 5],
  ['JUDGMENT_PERSIST', '0', 'persistence.enabled', false],
  ['JUDGMENT_PERSIST_REQUIRED', 'off', 'persistence.required', false],
  ['JUDGMENT_PERSIST_EVIDENCE', 'no', 'persistence.evidence', false],
  ['JUDGMENT_RETENTION_DAYS', '30', 'persistence.retentionDays', 30],
  ['JUDGMENT_LOG', 'false', 'log', false],
  ['JUDGMENT_STRICT_EVIDENCE_PATHS', 'true', 'strictEvidencePaths', true],
  ['JUDGMENT_MAX_EVIDENCE_BYTES', '65536', 'maxEvidenceBytes', 65_536],
];

function read(env: Env, path: string): unknown {
  const [head, ...rest] = path.split('.');
  const root: unknown = head === 'queue' ? judgmentQueueAttemptsFromEnv(env) : judgmentOptionsFromEnv(env);
  return (head === 'queue' ? rest : [head, ...rest]).reduce<unknown>(
    (value, key) => (value as Record<string, unknown> | undefined)?.[key],
    root,
  );
}

describe('judgmentOptionsFromEnv', () => {
  it('gives every option its SPEC §4 default when no variable is set', () => {
    expect(judgmentOptionsFromEnv({})).toEqual(DEFAULTS);
    expect(judgmentQueueAttemptsFromEnv({})).toEqual({ attempts: 1, decideAttempts: 3 });
  });

  it.each(VARIABLES)('maps %s=%s to %s', (variable, value, path, expected) => {
    expect(read({}, path)).not.toEqual(expected); // the default differs, so the variable is what changed it
    expect(read({ [variable]: value }, path)).toEqual(expected);
  });

  it('keeps records forever with JUDGMENT_RETENTION_DAYS=forever', () => {
    expect(judgmentOptionsFromEnv({ JUDGMENT_RETENTION_DAYS: 'forever' }).persistence?.retentionDays).toBeNull();
  });

  it.each([
    ['boolean', 'JUDGMENT_LOG', 'maybe'],
    ['number', 'JUDGMENT_JEV_TIMEOUT', 'soon'],
    ['positive number', 'JUDGMENT_JEV_TIMEOUT', '0'],
    ['integer', 'JUDGMENT_JEV_RETRIES', '2.5'],
    ['retention', 'JUDGMENT_RETENTION_DAYS', 'a year'],
    ['limit without its unit', 'JUDGMENT_JEV_LIMIT_REQUESTS', '1200'],
    ['non-positive limit', 'JUDGMENT_LAYA_LIMIT_TOKENS', '0/min'],
  ])('refuses an invalid %s, naming the variable (%s=%s)', (_kind, variable, value) => {
    const error = (() => {
      try {
        judgmentOptionsFromEnv({ [variable]: value });
      } catch (thrown) {
        return thrown as Error;
      }
      throw new Error('No error was thrown.');
    })();

    expect(error).toBeInstanceOf(InvalidConfiguration);
    expect(error.message).toContain(variable);
    expect(error.message).toContain(`"${value}"`);
  });

  it('refuses an invalid queue attempt count, naming the variable', () => {
    expect(() => judgmentQueueAttemptsFromEnv({ JUDGMENT_QUEUE_TRIES: '0' })).toThrow(/JUDGMENT_QUEUE_TRIES/);
  });

  it('fails the app at startup when forRootAsync reads an invalid variable', async () => {
    const error = await rejectionOf(
      compileApp({
        typeOrm: typeOrmRoot('sqlite', ':memory:'),
        options: {},
        root: JudgmentModule.forRootAsync({
          useFactory: () => judgmentOptionsFromEnv({ JUDGMENT_PERSIST: 'perhaps' }),
        }),
      }),
    );

    expect(error).toBeInstanceOf(InvalidConfiguration);
    expect(error.message).toContain('JUDGMENT_PERSIST');
  });
});

describe('done when', () => {
  let db: SuiteDatabase;
  let sim: JevSimulator;
  let url: string;

  beforeAll(async () => {
    db = await SuiteDatabase.create('judgment_judge_env');
    ({ sim, url } = await startSimulator());
  });

  afterAll(async () => {
    await db?.close();
    await sim?.stop();
  });

  it('an app configured with judgmentOptionsFromEnv and forFeature assesses a Judgment end to end into PostgreSQL', async () => {
    const env = { TYPESAFE_API_KEY: API_KEY, TYPESAFE_BASE_URL: url };
    @Module({
      imports: [
        typeOrmRoot('postgres', db.name),
        EventEmitterModule.forRoot(),
        JudgmentModule.forRoot(judgmentOptionsFromEnv(env)),
        JudgmentModule.forFeature([RefundAbuse]),
      ],
    })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    try {
      const refund = await db.postgres.getRepository(Refund).save(aRefund());
      const judge = app.get(Judge);

      const assessment: Assessment<RefundAbuse> = await judge.assess(new RefundAbuse(refund));
      const outcome = await assessment.outcome();

      expect(outcome).toBe('approve');
      const [request] = decisionRequests(sim);
      expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
      const rows = await db.postgres.query('SELECT * FROM judgment_assessments');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        judgment: 'refund-abuse',
        subject_type: 'Refund',
        subject_id: String(refund.id),
        engine: 'jev',
        model: MODEL,
        request_id: request.requestId,
        answers: assessment.encodedAnswers(),
        decision: 'RefundDecision',
        outcome: 'approve',
      });
    } finally {
      await app.close();
    }
  });
});

describe('the key rule', () => {
  it('an app whose jev connection points at a loopback simulator assesses over HTTP with no TYPESAFE_API_KEY', async () => {
    const keyless = await startJevSimulator();
    @Module({
      imports: [
        typeOrmRoot('sqlite', ':memory:'),
        EventEmitterModule.forRoot(),
        JudgmentModule.forRoot(
          judgmentOptionsFromEnv({ TYPESAFE_BASE_URL: keyless.url, JUDGMENT_PERSIST: 'false', NODE_ENV: 'production' }),
        ),
        JudgmentModule.forFeature([RefundAbuse]),
      ],
    })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    try {
      const assessment = await app
        .get(Judge)
        .assess(new RefundAbuse(aRefund({ explanation: 'Broken. [[abusive=0.9]]' })));

      expect(assessment.likelihood('abusive').probability).toBe(0.9);
      const [request] = decisionRequests(keyless);
      expect(request.headers.authorization).toBeUndefined();
    } finally {
      await app.close();
      await keyless.stop();
    }
  });
});
