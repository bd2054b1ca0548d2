// A queued assess job run again (its worker died after the record's INSERT, or the job was retried or given back)
// goes on from the answer an earlier run recorded under the job's id: announced again (AssessmentCompleted is at least
// once), no second Engine round, no second record. The Judge's side of the queue's re-run, on PostgreSQL and SQLite;
// test/queue/worker-kill.e2e-spec.ts kills a real worker process at that moment.
import { Assessment, AssessmentCompleted } from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  DB_KINDS,
  type DbKind,
  type Harness,
  NoteCheck,
  SuiteDatabase,
  decisionRequests,
  jevOptions,
  startApp,
  startSimulator,
} from './support';

let db: SuiteDatabase;
let sim: JevSimulator;
let url: string;

beforeAll(async () => {
  db = await SuiteDatabase.create('judgment_judge_job_rerun');
  ({ sim, url } = await startSimulator());
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

const NOTE = 'Refund me twice. [[flagged=0.35]]';

describe.each(DB_KINDS)('a re-run of a queued job on %s', (kind: DbKind) => {
  let harness: Harness | undefined;

  beforeEach(async () => {
    await db.reset();
    sim.clearLog().clearFaults();
  });

  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  const start = async (persistence: { required?: boolean } = {}) => {
    harness = await startApp({
      typeOrm: db.typeOrm(kind),
      options: jevOptions(url, { persistence }),
      judgments: [NoteCheck],
    });
    return harness;
  };

  it('announces the answer its first run recorded again, without asking the Engine or writing a second record', async () => {
    const { judge, captured } = await start();
    const first = await judge.attempt(new NoteCheck(NOTE), { job: { id: 'assess-rerun-1', rerun: false } });
    captured.trail.length = 0;

    const again = await judge.attempt(new NoteCheck(NOTE), { job: { id: 'assess-rerun-1', rerun: true } });

    expect(decisionRequests(sim)).toHaveLength(1);
    const [record, ...others] = await harness!.records();
    expect(others).toEqual([]);
    expect(record.jobId).toBe('assess-rerun-1');
    expect(again.record?.id).toBe(first.record?.id);
    expect(again.result).toBeInstanceOf(Assessment);
    expect((again.result as Assessment<NoteCheck>).likelihood('flagged').probability).toBe(0.35);
    expect(captured.trail).toEqual([
      `event:${AssessmentCompleted.NAME}`,
      'log:Judgment assessed in an earlier run of its job.',
    ]);
    expect(captured.of(AssessmentCompleted).map((event) => event.record?.id)).toEqual([record.id, record.id]);
    expect(captured.line('Judgment assessed in an earlier run of its job.')?.fields).toMatchObject({
      judgment: 'note-check',
      record: record.id,
    });
  });

  it("asks the Engine when no earlier run recorded an answer under the job's id (another job's record is not taken)", async () => {
    const h = await start();
    await h.judge.attempt(new NoteCheck(NOTE), { job: { id: 'assess-rerun-a', rerun: false } });

    const other = await h.judge.attempt(new NoteCheck(NOTE), { job: { id: 'assess-rerun-b', rerun: true } });

    expect(decisionRequests(sim)).toHaveLength(2);
    expect((await h.records()).map((record) => record.jobId)).toEqual(['assess-rerun-a', 'assess-rerun-b']);
    expect(other.record?.jobId).toBe('assess-rerun-b');
  });

  it('writes no job id on a record made inline', async () => {
    const h = await start();
    await h.judge.assess(new NoteCheck(NOTE));
    expect((await h.records()).map((record) => record.jobId)).toEqual([null]);
  });

  if (kind === 'postgres') {
    it('with best-effort persistence, a look-up that fails is logged and the Judgment assessed anew', async () => {
      const h = await start({ required: false });
      await h.dataSource.query('ALTER TABLE judgment_assessments RENAME COLUMN job_id TO job_id_gone');
      try {
        const rerun = await h.judge.attempt(new NoteCheck(NOTE), { job: { id: 'assess-rerun-x', rerun: true } });

        expect(decisionRequests(sim)).toHaveLength(1);
        expect(rerun.record).toBeNull();
        expect(h.captured.line('Judgment job record not looked up.')?.fields).toMatchObject({
          judgment: 'note-check',
          job: 'assess-rerun-x',
        });
        expect(h.captured.messages()).toContain('Judgment not recorded.');
      } finally {
        await h.dataSource.query('ALTER TABLE judgment_assessments RENAME COLUMN job_id_gone TO job_id');
      }
    });
  }
});
