// The review desk's record page at scale (issue 30): 1,000,000 records, 30,000 awaiting Review spread over the whole
// table, each with Evidence (untrusted text), answers, a decision trace and Provenance details as the library writes
// them. Times `GET /judgment/desk/records/:id` and the queue page `GET /judgment/desk` (page 1 in each order, a deep
// keyset page) over HTTP on this machine — the server's time (request in to response
// finished, measured in the app) and the client's round trip — for records in Review drawn across the table, in
// three states (unclaimed, held by the reviewer, held by someone else), beside `GET /judgment/records/:id` (the JSON
// API: the same lookup, no page) as the baseline, interleaved; p50/p99 and the ratio. Target: server p50 < 20 ms.
//   node -r ./scripts/register.js bench/review-record-page.bench.ts [runs]
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  type Assessment,
  Decision,
  Evidence,
  Judgment,
  JudgmentModule,
  Likelihood,
  Rating,
  judgmentEntities,
  judgmentMigrations,
} from 'nestjs-judgment';
import { JudgmentHttpModule } from 'nestjs-judgment/http';
import { DataSource } from 'typeorm';
import { request } from 'undici';
import { questionsFingerprint } from '../libs/judgment/src/questions/questions-fingerprint';
import { PG, median, percentile, recreateDatabase } from './support/bench';

const DATABASE = 'judgment_record_page_bench';
const RUNS = Number(process.argv[2] ?? 300);
const TARGET_MS = 20;

enum PageOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Decision({ outcomes: PageOutcome, review: [PageOutcome.Escalate], version: '1' })
class PageBenchDecision implements Decision<PageBenchRefund, PageOutcome> {
  readonly thresholds = { reject: 0.65, escalate: 0.3 };
  decide(assessment: Assessment<PageBenchRefund>): PageOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(this.thresholds.reject)) return PageOutcome.Reject;
    if (abusive.above(this.thresholds.escalate)) return PageOutcome.Escalate;
    return PageOutcome.Approve;
  }
}

@Judgment({ name: 'page-bench-refund', decision: () => PageBenchDecision })
class PageBenchRefund implements Judgment {
  constructor(readonly text = '') {}
  evidence() {
    return { order: { item: 'Kettle', amount_eur: 35 }, request: Evidence.untrusted(this.text) };
  }
  questions() {
    return {
      abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?'),
      credibility: Rating.of('How credible is the explanation?', ['None', 'Low', 'Fair', 'High']),
    };
  }
}

const TRACE = {
  version: 1,
  decision: 'PageBenchDecision',
  outcome: 'escalate',
  reads: [{ key: 'abusive', kind: 'likelihood', value: 0.45 }],
  comparisons: [
    { key: 'abusive', op: 'above', value: 0.45, threshold: 0.65, result: false, thresholdName: 'reject', margin: -0.2 },
    { key: 'abusive', op: 'above', value: 0.45, threshold: 0.3, result: true, thresholdName: 'escalate', margin: 0.15 },
  ],
  rule: { comparisons: [1], text: 'abusive ≥ escalate (0.3)' },
};

/**
 * Record i awaits Review when i % 33 = 0 (30,000 of the first 990,000); of those every 3rd is claimed, by staff #me
 * (c % 2 = 0) or staff #other. Every record carries Evidence, answers, a trace and ~1 KB of Provenance details.
 */
async function seed(db: DataSource): Promise<void> {
  const started = performance.now();
  const fingerprint = questionsFingerprint(new PageBenchRefund().questions());
  const details = JSON.stringify({ usage: { input_tokens: 412, output_tokens: 9 }, note: 'x'.repeat(900) });
  await db.query(
    `
    INSERT INTO judgment_assessments (judgment, subject_type, subject_id, evidence, evidence_fingerprint,
      untrusted_paths, questions_fingerprint, answers, engine, model, request_id, provenance_details, decision,
      decision_version, decision_thresholds, outcome, decision_trace, review_requested_at, review_reason, review_cause,
      claim_holder_type, claim_holder_id, claim_expires_at, claimed_at, review_deadline_at, created_at)
    SELECT 'page-bench-refund', 'Refund', (i % 50000)::text,
      jsonb_build_object('order', jsonb_build_object('item', 'Kettle', 'amount_eur', 35),
                         'request', 'Refund please, record ' || i || '. <script>alert(1)</script>'),
      repeat('a', 64), '["request"]', $1, '{"abusive": 0.45, "credibility": [0.1, 0.2, 0.6, 0.1]}',
      'jev', 'jev-1', 'req-' || i, $2::json, 'PageBenchDecision', '1', '{"reject": 0.65, "escalate": 0.3}',
      CASE WHEN awaiting THEN 'escalate' ELSE 'approve' END, $3::json,
      CASE WHEN awaiting THEN now() - interval '3 days' END,
      CASE WHEN awaiting THEN 'PageBenchDecision decided "escalate", one of its Review Outcomes.' END,
      CASE WHEN awaiting THEN 'band' END,
      CASE WHEN c > 0 THEN 'staff' END,
      CASE WHEN c > 0 AND c % 2 = 0 THEN 'me' WHEN c > 0 THEN 'other' END,
      CASE WHEN c > 0 THEN now() + interval '1 hour' END,
      CASE WHEN c > 0 THEN now() - interval '5 minutes' END,
      CASE WHEN awaiting THEN now() + interval '1 day' END,
      now() - (1000000 - i) * interval '1 second'
    FROM (
      SELECT i, awaiting, CASE WHEN awaiting AND (i / 33) % 3 = 0 THEN i / 99 ELSE 0 END AS c
      FROM (SELECT i, (i % 33 = 0 AND i <= 990000) AS awaiting FROM generate_series(1, 1000000) AS i) AS numbered
    ) AS rows`,
    [fingerprint, details, JSON.stringify(TRACE)],
  );
  await db.query('VACUUM ANALYZE judgment_assessments');
  const [counts] = await db.query(`SELECT count(*)::int AS total,
      count(*) FILTER (WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL)::int AS awaiting
    FROM judgment_assessments`);
  console.log(
    `seeded ${counts.total} records (${counts.awaiting} awaiting Review) in ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** The server time of the last request (set when its response finishes). */
let lastServerMs = 0;
type ServerTimed = { on(event: 'finish', listener: () => void): void };

async function startApp(): Promise<INestApplication> {
  @Module({
    imports: [
      TypeOrmModule.forRoot({ ...PG, database: DATABASE, entities: judgmentEntities, retryAttempts: 0 }),
      JudgmentModule.forRoot({ engine: 'mock', engines: { mock: { driver: 'mock' } }, log: false }),
      JudgmentModule.forFeature([PageBenchRefund]),
      JudgmentHttpModule.forRoot({
        ui: true,
        canView: () => true,
        reviewerFrom: () => ({ type: 'staff', id: 'me' }),
      }),
    ],
  })
  class RecordPageBenchModule {}
  const app = await NestFactory.create(RecordPageBenchModule, { logger: ['error'] });
  // Server time: from the request reaching the app to the response's last byte handed to the socket.
  app.use((_request: unknown, response: ServerTimed, next: () => void) => {
    const started = performance.now();
    response.on('finish', () => (lastServerMs = performance.now() - started));
    next();
  });
  await app.listen(0, '127.0.0.1');
  return app;
}

/** One GET: its round trip as the client saw it, and the server's time. */
async function timed(url: string, contains: string): Promise<{ client: number; server: number }> {
  const started = performance.now();
  const response = await request(url);
  const body = await response.body.text();
  const client = performance.now() - started;
  if (response.statusCode !== 200 || !body.includes(contains)) {
    throw new Error(`${url} answered ${response.statusCode} without "${contains}": ${body.slice(0, 300)}`);
  }
  return { client, server: lastServerMs };
}

async function main(): Promise<void> {
  await recreateDatabase(DATABASE);
  const db = await new DataSource({ ...PG, database: DATABASE, migrations: judgmentMigrations }).initialize();
  await db.runMigrations({ transaction: 'each' });
  await seed(db);
  const awaiting: Array<{ id: number; holder: string | null }> = await db.query(
    `SELECT id, claim_holder_id AS holder FROM judgment_assessments
     WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL ORDER BY id`,
  );
  await db.destroy();
  /** RUNS records in Review held by `holder` (null: unclaimed), spread evenly over the table. */
  const ids = (holder: string | null) => {
    const matching = awaiting.filter((row) => row.holder === holder).map((row) => Number(row.id));
    return Array.from({ length: RUNS }, (_, j) => matching[Math.floor((j * matching.length) / RUNS)]);
  };
  const app = await startApp();
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const unclaimed = ids(null);
  const record = (list: number[], html: boolean) => (run: number) => url(base, list[run], html);
  const queue = (query: (run: number) => string) => (run: number) => `${base}/judgment/desk?${query(run)}`;
  const cases = [
    { name: 'record page, unclaimed', path: record(unclaimed, true), contains: '>Claim</button>', page: true },
    { name: 'record page, held by me', path: record(ids('me'), true), contains: 'You hold this case', page: true },
    { name: 'record page, held by another', path: record(ids('other'), true), contains: 'Claimed by', page: true },
    { name: 'JSON record (baseline)', path: record(unclaimed, false), contains: '"trace"', page: false },
    { name: 'queue page 1, oldest first', path: queue(() => 'limit=20'), contains: 'Awaiting Review', page: true },
    {
      name: 'queue page, deep (keyset)',
      path: queue((run) => `limit=20&after=${unclaimed[run]}`),
      contains: 'Awaiting Review',
      page: true,
    },
    {
      name: 'queue page 1, nearest deadline',
      path: queue(() => 'limit=20&sort=deadline'),
      contains: 'Awaiting Review',
      page: true,
    },
    {
      name: 'queue page 1, least confident',
      path: queue(() => 'limit=20&sort=confidence'),
      contains: 'Awaiting Review',
      page: true,
    },
  ];
  const server = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const client = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (const c of cases) await timed(c.path(0), c.contains); // warm up
  for (let run = 0; run < RUNS; run++) {
    for (const c of cases) {
      const time = await timed(c.path(run), c.contains);
      server.get(c.name)!.push(time.server);
      client.get(c.name)!.push(time.client);
    }
  }
  await app.close();
  const baseline = median(server.get('JSON record (baseline)')!);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${RUNS} runs per case, interleaved`,
  );
  for (const c of cases) {
    const values = server.get(c.name)!;
    const p50 = median(values);
    const verdict = c.page ? ` (target < ${TARGET_MS} ms: ${p50 < TARGET_MS ? 'met' : 'MISSED'})` : '';
    console.log(
      `${c.name.padEnd(30)} server p50 ${p50.toFixed(2)} ms p99 ${percentile(values, 0.99).toFixed(2)} ms ` +
        `×${(p50 / baseline).toFixed(2)} of the JSON record; round trip p50 ${median(client.get(c.name)!).toFixed(2)} ms` +
        verdict,
    );
  }
}

function url(base: string, id: number, html: boolean): string {
  return html ? `${base}/judgment/desk/records/${id}` : `${base}/judgment/records/${id}`;
}

void main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
