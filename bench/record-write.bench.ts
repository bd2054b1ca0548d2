// Writing the record of an answered attempt on PostgreSQL: main's path (`repository.save(repository.create(...))`:
// START TRANSACTION, INSERT … RETURNING, COMMIT, with TypeORM's change tracking) beside RecordWriter's single INSERT,
// for the same rows, in alternating rounds of one run. Prints p50/p99 latency, client CPU and statements per write,
// and the bytes of provenance_details for one real Jev answer: main's (the whole body beside usage and confidence)
// and the driver's now (the body minus what was read out of it).
//   node -r ./scripts/register.js bench/record-write.bench.ts [writes per round]
import { type AssessmentRecord, judgmentMigrations } from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { DataSource } from 'typeorm';
import { Assessment, type EncodedAnswers } from '../libs/judgment/src/assessment/assessment';
import { Provenance } from '../libs/judgment/src/assessment/provenance';
import { COMPUTE_ONLY } from '../libs/judgment/src/decision/apply-decision';
import { readResponse, requestBody } from '../libs/judgment/src/engines/jev/jev.wire';
import { describeAttempt } from '../libs/judgment/src/judge/attempt';
import { expandQuestions } from '../libs/judgment/src/questions/question';
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

  const attempt = describeAttempt(new RefundCheck('It leaks from the base; photo attached. [[credibility=3:0.6]]'));
  // One real Jev answer (the simulator, in this process): main stored its whole body as Provenance `response`
  // beside the usage and confidence read from it; the driver now keeps the body minus what was read out of it.
  const simulator = new JevSimulator();
  const url = await simulator.start(0);
  const questions = expandQuestions(attempt.name, attempt.questions);
  const text = await (
    await fetch(`${url}/v1/systemone`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: requestBody('jev-1.13.0', attempt.evidence.shown, questions),
    })
  ).text();
  await simulator.stop();
  const reading = readResponse(text, questions, { connection: 'jev', requestId: 'req-bench' });
  const { usage, confidence } = reading;
  const mainDetails = { usage, confidence, response: JSON.parse(text) as Record<string, unknown> };
  const provenance = new Provenance('jev', reading.model, 'req-bench', { usage, confidence, response: reading.unread });
  const answers = reading.answers as EncodedAnswers;
  const assessment = Assessment.fromAnswers(attempt.judgment, attempt.questions, answers, provenance, COMPUTE_ONLY);
  const storedBytes = (details: object) => Buffer.byteLength(JSON.stringify(details));

  const paths: Record<string, () => Promise<AssessmentRecord>> = {
    // main's RecordWriter.recordAssessment: the same columns through save(), with main's Provenance details.
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
          provenanceDetails: mainDetails,
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
      provenanceDetailsBytes: { before: storedBytes(mainDetails), after: storedBytes(provenance.details) },
      answersBytes: storedBytes(assessment.encodedAnswers()),
    }),
  );
  await app.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
