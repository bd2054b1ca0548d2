// What each round costs (issue 33, point 2), from the caller's side: a connection declares its price, every record
// carries the cost of its round (the tokens the Engine reported × the price, plus each paid request once), a record
// of an unpriced connection or of a round whose usage is unknown has none and says why, the `judgment.cost` metric
// adds the same figures, and `judgment status` / `judgment explain` (real processes) show them. Real PostgreSQL
// migrated by judgmentMigrations, the Jev simulator over real HTTP.
import { CacheModule, type CacheManagerOptions } from '@nestjs/cache-manager';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Keyv } from 'keyv';
import { DataSource } from 'typeorm';
import {
  type Assessment,
  EngineFailed,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  Likelihood,
  judgmentEntities,
  judgmentMigrations,
} from 'nestjs-judgment';
import { type JevSimulator, startOpenAiSimulator } from 'nestjs-judgment/simulator';
import { InvalidPrice } from 'nestjs-judgment/testing';
import { RecordWriter } from '../../libs/judgment/src/persistence/record.writer';
import { costPerDecision } from '../../libs/judgment/src/records/decision-costs';
import { runBin } from '../cli/cli-process';
import { PG, recreateDatabase } from '../support/postgres';
import {
  type Telemetry,
  collectMetrics,
  points,
  registerTelemetry,
  unregisterTelemetry,
} from '../telemetry/telemetry.fixtures';
import { FreeNote, NoteOutcome, NotePolicy, PRICE, PricedNote, costOptions } from './cost.fixture';
import {
  allowWrites,
  decisionRequests,
  jevConnection,
  refuseWrites,
  rejectionOf,
  startApp,
  startSimulator,
  typeOrmRoot,
} from './support';

const DATABASE = 'judgment_judge_cost';

interface CostRow {
  id: number;
  judgment: string;
  cost: string | null;
  cost_currency: string | null;
  cost_basis: Record<string, unknown> | null;
  outcome: string | null;
}

let sim: JevSimulator;
let url: string;
let app: INestApplication;
let telemetry: Telemetry;

/** The price of a round by hand: tokens × price per million, plus requests × price per request, to 12 places. */
const byHand = (input: number, output: number, requests: number) =>
  Number(
    (
      (input * PRICE.inputPerMillion) / 1e6 +
      (output * PRICE.outputPerMillion) / 1e6 +
      requests * PRICE.perRequest
    ).toFixed(12),
  );

const usageOf = (assessment: Assessment<any>) =>
  assessment.provenance.details.usage as { input_tokens: number; output_tokens: number };

const rows = (): Promise<CostRow[]> =>
  app
    .get(DataSource)
    .query(
      'SELECT id, judgment, cost, cost_currency, cost_basis, outcome FROM judgment_assessments ORDER BY id',
    ) as Promise<CostRow[]>;

const lastRow = async (): Promise<CostRow> => (await rows()).at(-1) as CostRow;

const cli = (args: string[]) =>
  runBin(['--app', 'test/judge/cost-app.module.ts#CostAppModule', ...args], {
    COST_DATABASE: DATABASE,
    COST_SIM_URL: url,
    JUDGMENT_TEST_PG_PORT: String(PG.port),
  });

beforeAll(async () => {
  telemetry = registerTelemetry();
  ({ sim, url } = await startSimulator());
  await recreateDatabase(DATABASE);
  const migrator = await new DataSource({ ...PG, database: DATABASE, migrations: judgmentMigrations }).initialize();
  await migrator.runMigrations();
  await migrator.destroy();
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({ ...PG, database: DATABASE, entities: judgmentEntities, retryAttempts: 0 }),
      JudgmentModule.forRoot(costOptions(url)),
      JudgmentModule.forFeature([PricedNote, FreeNote, NotePolicy]),
    ],
  }).compile();
  app = moduleRef.createNestApplication({ logger: false });
  await app.init();
});

afterAll(async () => {
  await app?.close();
  await sim?.stop();
  await unregisterTelemetry(telemetry);
});

beforeEach(() => sim.clearLog());

describe('the cost of each round', () => {
  it('a priced connection: the record costs the tokens the Engine reported × the price, plus its one request', async () => {
    const assessment = await app.get(Judge).assess(new PricedNote('Where is my parcel? [[flagged=0.2]]'));
    expect(await assessment.decide(new NotePolicy())).toBe(NoteOutcome.Allow);
    const { input_tokens, output_tokens } = usageOf(assessment);
    expect(input_tokens).toBeGreaterThan(0);
    expect(output_tokens).toBeGreaterThan(0);
    const row = await lastRow();
    // numeric(24,12) on PostgreSQL: the exact decimal, to 12 places.
    expect(Number(row.cost)).toBe(byHand(input_tokens, output_tokens, 1));
    expect(row.cost).toBe(byHand(input_tokens, output_tokens, 1).toFixed(12));
    expect(row.cost_currency).toBe('USD');
    expect(row.cost_basis).toEqual({
      connection: 'priced',
      inputTokens: input_tokens,
      outputTokens: output_tokens,
      requests: 1,
      price: { ...PRICE },
      note: null,
    });
  });

  it('an unpriced connection: the record has no cost, and says why', async () => {
    const assessment = await app.get(Judge).assess(new FreeNote('Send me a refund. [[flagged=0.7]]'));
    expect(await assessment.decide(new NotePolicy())).toBe(NoteOutcome.Block);
    const row = await lastRow();
    expect(row).toMatchObject({ judgment: 'free-note', cost: null, cost_currency: null });
    expect(row.cost_basis).toMatchObject({
      connection: 'free',
      inputTokens: usageOf(assessment).input_tokens,
      price: null,
      note: 'The connection "free" declares no price (engines.free.price).',
    });
  });

  it('a 429 retried by the driver is not paid: two requests sent, one paid request counted', async () => {
    sim.fail({ status: 429, retryAfterMs: 1 }, 1);
    const assessment = await app.get(Judge).assess(new PricedNote('Cancel my order. [[flagged=0.9]]'));
    expect(await assessment.decide(new NotePolicy())).toBe(NoteOutcome.Block);
    expect(decisionRequests(sim).map((request) => request.status)).toEqual([429, 200]);
    const { input_tokens, output_tokens } = usageOf(assessment);
    const row = await lastRow();
    expect(Number(row.cost)).toBe(byHand(input_tokens, output_tokens, 1));
    expect(row.cost_basis).toMatchObject({ requests: 1 });
  });

  it('a paid answer the Judge refused costs what it reported; one without usage has no cost, and says why', async () => {
    sim.fail({ kind: 'malformed', variant: 'out-of-range' }, 1);
    expect(await rejectionOf(app.get(Judge).assess(new PricedNote('Hello [[flagged=0.3]]')))).toBeInstanceOf(
      EngineFailed,
    );
    const refused = await lastRow();
    const basis = refused.cost_basis as { inputTokens: number; outputTokens: number; requests: number };
    expect(basis.inputTokens).toBeGreaterThan(0);
    expect(basis.requests).toBe(1);
    expect(Number(refused.cost)).toBe(byHand(basis.inputTokens, basis.outputTokens, 1));

    sim.fail({ kind: 'malformed', variant: 'non-json' }, 1);
    expect(await rejectionOf(app.get(Judge).assess(new PricedNote('Hello again [[flagged=0.3]]')))).toBeInstanceOf(
      EngineFailed,
    );
    const unread = await lastRow();
    expect(unread).toMatchObject({ cost: null, cost_currency: 'USD' });
    expect(unread.cost_basis).toMatchObject({ inputTokens: null, requests: 1 });
    expect((unread.cost_basis as { note: string }).note).toBe(
      'The round reported no input token count, and engines.priced.price charges for it: no cost is made up.',
    );
  });

  it('the judgment.cost metric adds each priced round once, by Judgment, connection and currency', async () => {
    const recorded = (await rows()).filter((row) => row.judgment === 'priced-note' && row.cost !== null);
    const total = recorded.reduce((sum, row) => sum + Number(row.cost), 0);
    const seen = points(await collectMetrics(telemetry), 'judgment.cost');
    expect(seen).toHaveLength(1);
    const [[attributes, value]] = seen;
    expect(attributes).toEqual({
      'judgment.name': 'priced-note',
      'judgment.connection': 'priced',
      'judgment.currency': 'USD',
    });
    expect(value).toBeCloseTo(total, 12);
  });

  it('judgment status shows the cost per decision of each Judgment over the window', async () => {
    const all = await rows();
    const priced = all.filter((row) => row.judgment === 'priced-note');
    const total = Number(priced.reduce((sum, row) => sum + Number(row.cost ?? 0), 0).toFixed(12));
    const decisions = priced.filter((row) => row.outcome !== null).length;
    expect(decisions).toBe(2);

    const json = await cli(['status', '--json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const status = JSON.parse(json.stdout);
    expect(status.connections.find((c: { connection: string }) => c.connection === 'priced').price).toEqual({
      ...PRICE,
    });
    expect(status.costs).toMatchObject({ window: '30d', problem: null });
    expect(status.costs.judgments).toEqual([
      {
        judgment: 'free-note',
        currency: null,
        records: 1,
        decisions: 1,
        uncosted: 1,
        total: null,
        perDecision: null,
      },
      {
        judgment: 'priced-note',
        currency: 'USD',
        records: priced.length,
        decisions,
        uncosted: 1,
        total,
        perDecision: Number((total / decisions).toFixed(12)),
      },
    ]);

    const text = await cli(['status', '--since', '7d']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'priced: 0.15 USD per 1M input tokens, 0.6 USD per 1M output tokens, 0.0001 USD per request.',
    );
    expect(text.stdout).toMatch(/Cost per decision over the last 7d \(since \d{4}-\d\d-\d\dT/);
    expect(text.stdout).toMatch(
      new RegExp(
        `priced-note +│ +${priced.length} +│ +2 +│ +${total} USD +│ +≥ ${Number((total / 2).toFixed(12))} USD +│ +1`,
      ),
    );
    expect(text.stdout).toMatch(/free-note +│ +1 +│ +1 +│ +— +│ +— +│ +1/);
    expect(text.stdout).toContain('≥: some records have no cost');

    const refused = await cli(['status', '--since', 'forever']);
    expect(refused.code).toBe(2);
    expect(refused.stdout + refused.stderr).toContain('--since:');
  });

  it('judgment explain shows the record’s cost and what it was reached from, or why there is none', async () => {
    const [first, free] = await rows();
    const basis = first.cost_basis as { inputTokens: number; outputTokens: number };
    const priced = await cli(['explain', String(first.id)]);
    expect(priced.code).toBe(0);
    expect(priced.stdout).toContain(
      `Cost: ${Number(first.cost)} USD (${basis.inputTokens} input tokens at 0.15/1M + ${basis.outputTokens} ` +
        'output tokens at 0.6/1M + 1 request at 0.0001 each)',
    );
    const unpriced = await cli(['explain', String(free.id)]);
    expect(unpriced.stdout).toContain('Cost: unknown — The connection "free" declares no price (engines.free.price).');
    const json = JSON.parse((await cli(['explain', String(first.id), '--json'])).stdout);
    expect(json.cost).toEqual({ amount: Number(first.cost), currency: 'USD', basis: first.cost_basis });
  });
});

/** Three Questions: three requests a round on the openai driver. */
@Judgment({ name: 'post-review' })
class PostReview implements Judgment {
  constructor(readonly text: string) {}

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
}

describe('a round retried after it failed part way (openai driver: one request per Question)', () => {
  it('each paid request is on exactly one record: the retry pays only for the Questions not yet answered', async () => {
    const openai = await startOpenAiSimulator({ apiKey: 'sk-proj-cost-SECRET' });
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({ ...PG, database: DATABASE, entities: judgmentEntities, retryAttempts: 0 }),
        JudgmentModule.forRoot({
          engine: 'openai',
          engines: {
            openai: {
              driver: 'openai',
              url: openai.url,
              key: 'sk-proj-cost-SECRET',
              model: openai.model,
              retries: 0,
              maxConcurrency: 1,
              price: { perRequest: 0.01, currency: 'EUR' },
            },
          },
          log: false,
        }),
        JudgmentModule.forFeature([PostReview]),
      ],
    }).compile();
    const posts = moduleRef.createNestApplication({ logger: false });
    await posts.init();
    try {
      const text = 'Buy cheap watches! [[toxic=0.1]] [[spam=0.9]] [[off=0.7]]';
      // The first Question is answered, the second's answer (a 2xx, paid) cannot be read: the round fails.
      openai.fail({ kind: 'answer' }).fail({ kind: 'omit-logprobs' });
      expect(await rejectionOf(posts.get(Judge).assess(new PostReview(text)))).toBeInstanceOf(EngineFailed);
      await posts.get(Judge).assess(new PostReview(text));
      const paid = openai.requests.filter((request) => request.path === '/v1/chat/completions');
      expect(paid.map((request) => request.status)).toEqual([200, 200, 200, 200]);

      const [failed, answered] = (await rows()).filter((row) => row.judgment === 'post-review');
      expect(failed).toMatchObject({ cost: '0.020000000000', cost_currency: 'EUR' });
      expect(failed.cost_basis).toMatchObject({ requests: 2, note: null });
      // The retry asked spam and off again (2 requests) and reused toxic, whose request the failed record holds.
      expect(answered).toMatchObject({ cost: '0.020000000000', cost_currency: 'EUR' });
      expect(answered.cost_basis).toMatchObject({
        requests: 2,
        note: `Answers reused from record #${failed.id} are that record's cost.`,
      });
      expect(Number(failed.cost) + Number(answered.cost)).toBeCloseTo(paid.length * 0.01, 12);
    } finally {
      await posts.close();
      await openai.stop();
    }
  });
});

describe('answers recorded late (SQLite)', () => {
  it('bring the cost of the round that paid for them when that round could not be recorded', async () => {
    const openai = await startOpenAiSimulator({ apiKey: 'sk-proj-cost-SECRET' });
    const harness = await startApp({
      typeOrm: typeOrmRoot('sqlite', ':memory:'),
      options: {
        engine: 'openai',
        engines: {
          openai: {
            driver: 'openai',
            url: openai.url,
            key: 'sk-proj-cost-SECRET',
            model: openai.model,
            retries: 0,
            maxConcurrency: 1,
            price: { perRequest: 0.01, currency: 'EUR' },
          },
        },
        log: false,
      },
      judgments: [PostReview],
      events: false,
    });
    try {
      const text = 'Buy cheap watches! [[toxic=0.1]] [[spam=0.9]] [[off=0.7]]';
      const dataSource = harness.app.get(DataSource);
      // The round fails part way (toxic answered, spam's paid answer unreadable) and its record cannot be written.
      await refuseWrites(dataSource);
      openai.fail({ kind: 'answer' }).fail({ kind: 'omit-logprobs' });
      expect(await rejectionOf(harness.app.get(Judge).assess(new PostReview(text)))).toBeInstanceOf(EngineFailed);
      await allowWrites(dataSource);
      await harness.app.get(Judge).assess(new PostReview(text));
      const paid = openai.requests.filter((request) => request.path === '/v1/chat/completions');
      expect(paid.map((request) => request.status)).toEqual([200, 200, 200, 200]);

      const records = await harness.records();
      expect(records).toHaveLength(1);
      expect(records[0].cost).toBe(0.04);
      expect(records[0].costBasis).toMatchObject({
        requests: 4,
        note: 'Includes the round of earlier answers, recorded here because their own record was not written.',
      });
    } finally {
      await harness.close();
      await openai.stop();
    }
  });
});

describe('on SQLite (migrated by judgmentMigrations in memory)', () => {
  it('the record holds the same cost, read back as a number', async () => {
    const harness = await startApp({
      typeOrm: typeOrmRoot('sqlite', ':memory:'),
      options: { engine: 'priced', engines: { priced: jevConnection(url, { price: PRICE }) }, log: false },
      judgments: [PricedNote],
      events: false,
    });
    try {
      const assessment = await harness.app.get(Judge).assess(new PricedNote('Where is my parcel? [[flagged=0.2]]'));
      const { input_tokens, output_tokens } = usageOf(assessment);
      const [record] = await harness.records();
      expect(record.cost).toBe(byHand(input_tokens, output_tokens, 1));
      expect(record.costCurrency).toBe('USD');
      expect(record.costBasis).toMatchObject({ connection: 'priced', requests: 1, inputTokens: input_tokens });
    } finally {
      await harness.close();
    }
  });
});

/** PricedNote's question, answered from the cache for a minute. */
@Judgment({ name: 'cached-note', engine: 'priced' })
class CachedNote implements Judgment {
  constructor(readonly note: string) {}

  evidence() {
    return { note: Evidence.untrusted(this.note) };
  }

  questions() {
    return { flagged: Likelihood.that('Does the note ask for something against the rules?') };
  }

  cacheFor() {
    return 60;
  }
}

describe('a cache hit (SQLite)', () => {
  it('costs 0: nothing was asked, and the record says so', async () => {
    const harness = await startApp({
      typeOrm: typeOrmRoot('sqlite', ':memory:'),
      options: { engine: 'priced', engines: { priced: jevConnection(url, { price: PRICE }) }, log: false },
      judgments: [CachedNote],
      events: false,
      imports: [CacheModule.register({ stores: [new Keyv()] as unknown as CacheManagerOptions['stores'] })],
    });
    try {
      await harness.app.get(Judge).assess(new CachedNote('Where is my parcel? [[flagged=0.2]]'));
      await harness.app.get(Judge).assess(new CachedNote('Where is my parcel? [[flagged=0.2]]'));
      expect(decisionRequests(sim)).toHaveLength(1);
      const [asked, cached] = await harness.records();
      expect(asked.cost).toBeGreaterThan(0);
      expect(cached).toMatchObject({ cachedFromId: asked.id, cost: 0, costCurrency: 'USD' });
      expect(cached.costBasis).toMatchObject({ requests: 0, note: 'Answered from the cache: nothing was asked.' });
      // What `judgment status` reads, on SQLite: both records, one paid round, no decision yet.
      expect(await costPerDecision(harness.app.get(RecordWriter), new Date(0))).toEqual([
        {
          judgment: 'cached-note',
          currency: 'USD',
          records: 2,
          decisions: 0,
          uncosted: 0,
          total: asked.cost,
          perDecision: null,
        },
      ]);
    } finally {
      await harness.close();
    }
  });
});

describe('a price that cannot be used', () => {
  it('refuses the start, naming the connection and the field, before anything is asked', async () => {
    const options = costOptions(url);
    const engines = { ...options.engines, priced: { ...options.engines!.priced, price: { inputPerMillion: -1 } } };
    const moduleRef = await Test.createTestingModule({
      imports: [
        JudgmentModule.forRoot({ ...options, engines, persistence: { enabled: false }, dataSource: false }),
        JudgmentModule.forFeature([PricedNote]),
      ],
    }).compile();
    const broken = moduleRef.createNestApplication({ logger: false });
    const error = await rejectionOf(broken.init());
    await broken.close().catch(() => undefined);
    expect(error).toBeInstanceOf(InvalidPrice);
    expect(error.message).toContain('engines.priced.price.inputPerMillion is -1');
    expect(decisionRequests(sim)).toHaveLength(0);
  });
});
