// The support desk over HTTP (supertest) on real PostgreSQL (`judgment_http`) and real Redis (queue on, a unique
// prefix): create → dispatch → decided by the worker → Review → resolve, and every code of the error envelope.
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { databaseUrl, recreateDatabase } from '../support/postgres';
import { REDIS_URL, clearPrefix } from '../support/redis';
import { openDatabase, startApi, startWorker, uniquePrefix, waitFor } from './support';

const DATABASE = 'judgment_http';
const KEY = 'http-suite-key';
const ALICE = { 'x-agent': 'alice' };

const APPROVE = 'The kettle leaks from the base; photo attached. [[abusive=0.05]] [[credibility=3:0.85]]';
const ESCALATE = 'It does not fit; I wore it once. [[abusive=0.45]] [[credibility=2:0.6]]';

let sim: JevSimulator;
let api: INestApplication;
let worker: INestApplicationContext;
let db: DataSource;
let prefix: string;

beforeAll(async () => {
  await recreateDatabase(DATABASE);
  sim = new JevSimulator({ apiKey: KEY });
  const url = await sim.start(0);
  prefix = uniquePrefix('judgment-http');
  const env = {
    DATABASE_URL: databaseUrl(DATABASE),
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    TYPESAFE_API_KEY: KEY,
    TYPESAFE_BASE_URL: url,
    JUDGMENT_JEV_RETRIES: '0',
    JUDGMENT_LOG: 'false',
    SUPPORT_DESK_AGENTS: 'alice',
  };
  api = await startApi(env);
  worker = await startWorker(env);
  db = await openDatabase(DATABASE);
});

afterEach(() => sim.clearFaults());

afterAll(async () => {
  await worker?.close();
  await api?.close();
  await db?.destroy();
  await sim?.stop();
  if (prefix) await clearPrefix(prefix);
});

const http = () => request(api.getHttpServer());
const refundBody = (explanation: string) => ({ item: 'Kettle', amountEur: 35, explanation });

async function refundStatus(id: number): Promise<string> {
  return (await http().get(`/refunds/${id}`).expect(200)).body.refund.status;
}

/** The error body, checked to be exactly the envelope. */
function envelope(body: unknown): { code: string; message: string; details: Record<string, unknown> } {
  expect(Object.keys(body as object)).toEqual(['error']);
  const error = (body as { error: Record<string, unknown> }).error;
  expect(Object.keys(error).sort()).toEqual(['code', 'details', 'message']);
  expect(typeof error.message).toBe('string');
  return error as ReturnType<typeof envelope>;
}

describe('the support desk over HTTP, on PostgreSQL with the BullMQ queue', () => {
  it('POST /refunds assesses synchronously and answers with the Outcome after the Action ran', async () => {
    const { body } = await http().post('/refunds').send(refundBody(APPROVE)).expect(201);
    expect(body.outcome).toBe('approve');
    expect(body.answers.abusive).toBe(0.05);
    expect(body.provenance).toMatchObject({ engine: 'jev', model: 'jev-1.13.0' });
    expect(body.refund.status).toBe('approved');
  });

  it('create → dispatch → decided by the worker → Review → resolve', async () => {
    const created = await http().post('/refunds?dispatch=true').send(refundBody(ESCALATE)).expect(201);
    const id: number = created.body.refund.id;
    expect(created.body.jobId).toEqual(expect.any(String));
    expect(created.body.jobId).not.toMatch(/^inline-/);

    await waitFor('the worker to send the refund to Review', async () =>
      (await refundStatus(id)) === 'in_review' ? true : undefined,
    );

    const list = await http().get('/judgment/reviews?judgment=refund-abuse&limit=50').set(ALICE).expect(200);
    const summary = list.body.data.find((r: { subject: { id: string } }) => r.subject.id === String(id));
    expect(summary).toMatchObject({ judgment: 'refund-abuse', state: 'awaiting_review', outcome: 'escalate' });

    const shown = await http().get(`/judgment/records/${summary.id}`).set(ALICE).expect(200);
    expect(shown.body.evidence).toEqual({
      order: { item: 'Kettle', amount_eur: 35 },
      request: { explanation: { untrusted: true, text: ESCALATE } },
    });
    expect(shown.body.answers.abusive).toBe(0.45);
    expect(shown.body.decision).toEqual({ name: 'RefundDecision', version: '2' });
    // The worker's decision trace: the arm that fired and the declared threshold it compared, with the margin.
    expect(shown.body.trace).toMatchObject({ decision: 'RefundDecision', outcome: 'escalate' });
    expect(shown.body.trace.rule.text).toBe('abusive ≥ escalate (0.3)');
    expect(shown.body.trace.comparisons).toContainEqual(
      expect.objectContaining({ key: 'abusive', op: 'above', value: 0.45, threshold: 0.3, margin: 0.15, result: true }),
    );
    expect(shown.body.provenance).toMatchObject({ engine: 'jev', model: 'jev-1.13.0' });

    const resolved = await http()
      .post(`/judgment/records/${summary.id}/resolve`)
      .set(ALICE)
      .send({ resolution: 'approve' })
      .expect(200);
    expect(resolved.body).toMatchObject({ state: 'resolved', outcome: 'escalate' });
    expect(resolved.body.review).toMatchObject({ resolution: 'approve', resolver: { type: 'agent', id: 'alice' } });
    expect(await refundStatus(id)).toBe('approved');

    const notifications = await http().get('/notifications').expect(200);
    expect(notifications.body.data.filter((n: { recordId: number }) => n.recordId === summary.id)).toHaveLength(1);
  });

  it('a queued attempt the Engine failed is recorded Unassessed, and POST /refunds/:id/dispatch assesses it again', async () => {
    sim.fail({ status: 500 });
    const created = await http().post('/refunds?dispatch=true').send(refundBody(APPROVE)).expect(201);
    const id: number = created.body.refund.id;
    const failed = await waitFor('the Unassessed record', async () => {
      const rows = await db.query(
        `SELECT failure_type FROM judgment_assessments WHERE subject_type = 'Refund' AND subject_id = $1`,
        [String(id)],
      );
      return rows.length > 0 ? rows[0].failure_type : undefined;
    });
    expect(failed).toBe('EngineFailed');
    expect(await refundStatus(id)).toBe('pending');

    const again = await http().post(`/refunds/${id}/dispatch`).expect(202);
    expect(again.body.jobId).toEqual(expect.any(String));
    await waitFor('the refund to be approved', async () =>
      (await refundStatus(id)) === 'approved' ? true : undefined,
    );
  });
});

describe('paging the Review list', () => {
  it('GET /judgment/reviews pages with after = page.nextAfter, oldest first, until nextAfter is null', async () => {
    await db.query(
      `INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint,
         answers, outcome, review_requested_at)
       SELECT 'http-paging', repeat('e', 64), '[]', repeat('q', 64), '{}', 'escalate', now() FROM generate_series(1, 5)`,
    );
    const ids: number[] = [];
    let query = '/judgment/reviews?judgment=http-paging&limit=2';
    for (;;) {
      const { body } = await http().get(query).set(ALICE).expect(200);
      ids.push(...body.data.map((record: { id: number }) => record.id));
      if (body.page.nextAfter === null) break;
      expect(body.page.nextAfter).toBe(ids[ids.length - 1]);
      query = `/judgment/reviews?judgment=http-paging&limit=2&after=${body.page.nextAfter}`;
    }
    expect(ids).toHaveLength(5);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('after together with an offset answers validation_error naming both', async () => {
    const { body } = await http().get('/judgment/reviews?after=3&offset=2').set(ALICE).expect(400);
    expect(envelope(body)).toMatchObject({ code: 'validation_error', message: expect.stringContaining('not both') });
  });
});

describe('the error envelope', () => {
  it('an invalid body answers validation_error with the messages of each field', async () => {
    const { body } = await http().post('/refunds').send({ item: '', amountEur: 'ten', extra: 1 }).expect(400);
    const error = envelope(body);
    expect(error.code).toBe('validation_error');
    expect(Object.keys(error.details.fields as object).sort()).toEqual(['amountEur', 'explanation', 'extra', 'item']);
  });

  it('an invalid page answers validation_error', async () => {
    const { body } = await http().get('/judgment/reviews?limit=0').set(ALICE).expect(400);
    expect(envelope(body)).toMatchObject({
      code: 'validation_error',
      details: { fields: { limit: expect.any(Array) } },
    });
  });

  it('a missing record answers not_found', async () => {
    const { body } = await http().get('/judgment/records/999999').set(ALICE).expect(404);
    expect(envelope(body)).toMatchObject({
      code: 'not_found',
      message: 'Assessment record #999999 does not exist (never written, or pruned).',
    });
  });

  it('a missing subject answers not_found', async () => {
    const { body } = await http().post('/refunds/999999/dispatch').expect(404);
    expect(envelope(body).code).toBe('not_found');
  });

  it('a request canView refuses answers forbidden', async () => {
    const { body } = await http().get('/judgment/reviews').expect(403);
    expect(envelope(body).code).toBe('forbidden');
  });

  it('a reviewer who may not view records cannot resolve one either: forbidden, and the record stays in Review', async () => {
    const record = await recordAwaitingReview();
    const { body } = await http()
      .post(`/judgment/records/${record}/resolve`)
      .set('x-agent', 'mallory')
      .send({ resolution: 'approve' })
      .expect(403);
    expect(envelope(body)).toMatchObject({ code: 'forbidden', message: expect.stringContaining('may not read') });
    const { body: still } = await http().get(`/judgment/records/${record}`).set(ALICE).expect(200);
    expect(still.review).toMatchObject({ resolution: null, resolvedAt: null });
  });

  it('resolving a record twice answers conflict', async () => {
    const record = await recordAwaitingReview();
    await http().post(`/judgment/records/${record}/resolve`).set(ALICE).send({ resolution: 'reject' }).expect(200);
    const { body } = await http()
      .post(`/judgment/records/${record}/resolve`)
      .set(ALICE)
      .send({ resolution: 'approve' })
      .expect(409);
    expect(envelope(body)).toMatchObject({ code: 'conflict', details: { type: 'InvalidResolution' } });
  });

  it('an Engine failure answers engine_failed with its type and request id (rate limits: 503)', async () => {
    sim.fail({ status: 500 });
    const failed = await http().post('/refunds').send(refundBody(APPROVE)).expect(502);
    expect(envelope(failed.body)).toMatchObject({
      code: 'engine_failed',
      details: { type: 'EngineFailed', requestId: expect.stringMatching(/^req_/) },
    });
    sim.fail({ status: 429, retryAfterMs: 0 });
    const limited = await http().post('/refunds').send(refundBody(APPROVE)).expect(503);
    expect(envelope(limited.body)).toMatchObject({ code: 'engine_failed', details: { type: 'EngineRateLimited' } });
  });

  it('an unexpected error answers internal_error without its detail', async () => {
    await db.query('ALTER TABLE judgment_assessments RENAME TO judgment_assessments_away');
    try {
      const { body } = await http().post('/refunds').send(refundBody(APPROVE)).expect(500);
      const error = envelope(body);
      expect(error.code).toBe('internal_error');
      expect(error.details).toEqual({});
      expect(error.message).not.toMatch(/judgment_assessments/);
    } finally {
      await db.query('ALTER TABLE judgment_assessments_away RENAME TO judgment_assessments');
    }
  });
});

/** A refund assessed synchronously into Review; resolves to its record id. */
async function recordAwaitingReview(): Promise<number> {
  const { body } = await http().post('/refunds').send(refundBody(ESCALATE)).expect(201);
  const rows = await db.query(
    `SELECT id FROM judgment_assessments WHERE subject_type = 'Refund' AND subject_id = $1 ORDER BY id DESC`,
    [String(body.refund.id)],
  );
  return rows[0].id;
}
