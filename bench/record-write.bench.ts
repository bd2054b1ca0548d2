// Writing the record of an answered attempt on PostgreSQL: main's path (`repository.save(repository.create(...))`:
// START TRANSACTION, INSERT … RETURNING, COMMIT, with TypeORM's change tracking) beside RecordWriter's single INSERT,
// for the same rows, in alternating rounds of one run. Prints p50/p99 latency, client CPU and statements per write.
//   node -r ./scripts/register.js bench/record-write.bench.ts [writes per round]
import { type AssessmentRecord, judgmentMigrations } from 'nestjs-judgment';
import { DataSource } from 'typeorm';
import { Assessment } from '../libs/judgment/src/assessment/assessment';
import { Provenance } from '../libs/judgment/src/assessment/provenance';
import { COMPUTE_ONLY } from '../libs/judgment/src/decision/apply-decision';
import { describeAttempt } from '../libs/judgment/src/judge/attempt';
import { RecordWriter } from '../libs/judgment/src/persistence/record.writer';
import {
  PG,
  RefundCheck,
  countPostgresStatements,
  median,
  percentile,
  recreateDatabase,
  startRecordsApp,
} from './support/bench';

const DATABASE = 'judgment_bench_cost_record_write';
const WRITES = Number(process.argv[2] ?? 1000);
const ROUNDS = 3;

const statements = countPostgresStatements();

async function main() {
  await recreateDatabase(DATABASE);
  const db = await new DataSource({ ...PG, database: DATABASE, migrations: judgmentMigrations }).initialize();
  await db.runMigrations();
  await db.destroy();
  const app = await startRecordsApp(DATABASE);
  const writer = app.get(RecordWriter, { strict: false });
  const repository = writer.repository();

  const attempt = describeAttempt(new RefundCheck('It leaks from the base; photo attached.'));
  const answers = { abusive: 0.05, credibility: [0.05, 0.1, 0.25, 0.6] };
  const usage = { input_tokens: 412, output_tokens: 38 };
  const confidence = { abusive: 0.9, credibility: 0.7 };
  const provenance = new Provenance('jev', 'jev-1.13.0', 'req-bench', {
    usage,
    confidence,
    response: { model: 'jev-1.13.0', answers, usage, confidence },
  });
  const assessment = Assessment.fromAnswers(attempt.judgment, attempt.questions, answers, provenance, COMPUTE_ONLY);

  const paths: Record<string, () => Promise<AssessmentRecord>> = {
    // main's RecordWriter.recordAssessment: the same columns through save().
    'before: save()': () =>
      repository.save(
        repository.create({
          judgment: attempt.name,
          subjectType: null,
          subjectId: null,
          evidence: attempt.evidence.json,
          evidenceFingerprint: attempt.evidence.fingerprint,
          untrustedPaths: [...attempt.evidence.untrustedPaths],
          language: attempt.language,
          questionsFingerprint: attempt.questionsFingerprint,
          answers: assessment.encodedAnswers(),
          engine: provenance.engine,
          model: provenance.model,
          requestId: provenance.requestId,
          provenanceDetails: { ...provenance.details },
          failureType: null,
          failureMessage: null,
          cachedFromId: null,
        }),
      ),
    'after: RecordWriter': () => writer.recordAssessment(attempt, assessment),
  };

  const results: Record<string, { ms: number[]; cpuUs: number; statements: number; writes: number }> = {};
  for (const name of Object.keys(paths)) results[name] = { ms: [], cpuUs: 0, statements: 0, writes: 0 };
  for (const write of Object.values(paths)) for (let i = 0; i < 100; i++) await write(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, write] of Object.entries(paths)) {
      const result = results[name];
      const cpu = process.cpuUsage();
      const sent = statements();
      for (let i = 0; i < WRITES; i++) {
        const started = performance.now();
        const record = await write();
        result.ms.push(performance.now() - started);
        if (!(record.id > 0) || !(record.createdAt instanceof Date)) throw new Error(`${name} returned no row.`);
      }
      const used = process.cpuUsage(cpu);
      result.cpuUs += used.user + used.system;
      result.statements += statements() - sent;
      result.writes += WRITES;
    }
  }

  const rows = Object.entries(results).map(([name, r]) => ({
    path: name,
    'p50 ms': Number(median(r.ms).toFixed(3)),
    'p99 ms': Number(percentile(r.ms, 0.99).toFixed(3)),
    'client CPU ms/write': Number((r.cpuUs / 1000 / r.writes).toFixed(3)),
    'statements/write': Number((r.statements / r.writes).toFixed(2)),
  }));
  const [before, after] = rows;
  console.log(`${WRITES} sequential writes × ${ROUNDS} alternating rounds per path, PostgreSQL`);
  console.table(rows);
  console.log(
    JSON.stringify({
      p50Ratio: Number((before['p50 ms'] / after['p50 ms']).toFixed(2)),
      cpuRatio: Number((before['client CPU ms/write'] / after['client CPU ms/write']).toFixed(2)),
    }),
  );
  await app.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
