// Audits over the HTTP adapter, on PostgreSQL over real HTTP (supertest): sampled automatic Outcomes listed apart from
// Reviews with the Review list's paging and guards, and resolved race-safely with the envelope's errors.
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AssessmentRecord, Judge } from 'nestjs-judgment';
import type { JudgmentHttpRequest } from 'nestjs-judgment/http';
import { type RunningJevSimulator, startJevSimulator } from 'nestjs-judgment/simulator';
import { CALIBRATED_MODEL, ClaimCheck, freshDatabase, startApp } from './production.fixtures';

const DATABASE = 'judgment_calib_audit_http';
const ALICE = { 'x-agent': 'alice' };
const BOB = { 'x-agent': 'bob' };

let sim: RunningJevSimulator;
let app: INestApplication;

const agent = (request: JudgmentHttpRequest) => request.headers['x-agent'];
const http = () => request(app.getHttpServer());

/** Assesses a claim inline and returns its record id. */
async function claim(fraud: number): Promise<number> {
  const assessment = await app.get(Judge).assess(new ClaimCheck(`A claim. [[fraud=${fraud}]]`));
  await assessment.outcome();
  const [row] = await app
    .get(DataSource)
    .getRepository(AssessmentRecord)
    .find({ order: { id: 'DESC' }, take: 1 });
  return row.id;
}

/** The error body, checked to be exactly the envelope. */
function envelope(body: unknown): { code: string; message: string; details: Record<string, unknown> } {
  expect(Object.keys(body as object)).toEqual(['error']);
  return (body as { error: { code: string; message: string; details: Record<string, unknown> } }).error;
}

beforeAll(async () => {
  await freshDatabase(DATABASE);
  sim = await startJevSimulator({ model: CALIBRATED_MODEL });
  app = await startApp({
    simulatorUrl: sim.url,
    database: DATABASE,
    // Every automatic Outcome is audited; no lock here (the drift guard has its own suite).
    calibration: { audit: { 'claim-decision': 1 }, onDrift: 'off' },
    http: {
      canView: (request) => agent(request) !== undefined,
      reviewerFrom: (request) => {
        const id = agent(request);
        return typeof id === 'string' ? { type: 'Agent', id } : null;
      },
    },
  });
});

afterAll(async () => {
  await app?.close();
  await sim?.stop();
});

describe('audits over HTTP', () => {
  it('lists sampled automatic Outcomes apart from Reviews, with their audit', async () => {
    const audited = await claim(0.05); // approve: automatic, audited
    const inReview = await claim(0.5); // escalate: in Review, never audited

    const audits = await http().get('/judgment/audits?judgment=claim-check&limit=100').set(ALICE).expect(200);
    const ids = audits.body.data.map((row: { id: number }) => row.id);
    expect(ids).toContain(audited);
    expect(ids).not.toContain(inReview);
    expect(audits.body.data.find((row: { id: number }) => row.id === audited)).toMatchObject({
      judgment: 'claim-check',
      state: 'decided',
      outcome: 'approve',
      decision: { name: 'claim-decision', version: '3' },
      audit: { requestedAt: expect.any(String), resolution: null, auditor: null, auditedAt: null },
    });

    const reviews = await http().get('/judgment/reviews?judgment=claim-check&limit=100').set(ALICE).expect(200);
    const reviewIds = reviews.body.data.map((row: { id: number }) => row.id);
    expect(reviewIds).toContain(inReview);
    expect(reviewIds).not.toContain(audited);
  });

  it('pages with after (keyset) like the Review list', async () => {
    for (let i = 0; i < 3; i += 1) await claim(0.05);
    const all = (await http().get('/judgment/audits?limit=100').set(ALICE).expect(200)).body.data.map(
      (row: { id: number }) => row.id,
    );
    expect(all.length).toBeGreaterThanOrEqual(3);
    const first = await http().get('/judgment/audits?limit=2').set(ALICE).expect(200);
    expect(first.body.data.map((row: { id: number }) => row.id)).toEqual(all.slice(0, 2));
    expect(first.body.page).toMatchObject({ limit: 2, nextAfter: all[1] });
    const second = await http().get(`/judgment/audits?limit=100&after=${first.body.page.nextAfter}`).set(ALICE);
    expect(second.body.data.map((row: { id: number }) => row.id)).toEqual(all.slice(2));
    expect(second.body.page.nextAfter).toBeNull();
  });

  it('denies reading by default and refuses bad paging with validation_error', async () => {
    const denied = await http().get('/judgment/audits').expect(403);
    expect(envelope(denied.body).code).toBe('forbidden');
    const bad = await http().get('/judgment/audits?limit=0&claim=mine').set(ALICE).expect(400);
    expect(envelope(bad.body)).toMatchObject({ code: 'validation_error' });
    expect(Object.keys(envelope(bad.body).details.fields as object).sort()).toEqual(['claim', 'limit']);
  });

  it('resolves an audit: the auditor’s Outcome is recorded and the automatic one still stands', async () => {
    const id = await claim(0.05);
    const { body } = await http().post(`/judgment/records/${id}/audit`).set(ALICE).send({ resolution: 'reject' });
    expect(body).toMatchObject({
      id,
      outcome: 'approve',
      state: 'decided',
      review: null,
      audit: { resolution: 'reject', auditor: { type: 'Agent', id: 'alice' }, auditedAt: expect.any(String) },
    });
    const audits = await http().get('/judgment/audits?limit=100').set(ALICE).expect(200);
    expect(audits.body.data.map((row: { id: number }) => row.id)).not.toContain(id);
    const shown = await http().get(`/judgment/records/${id}`).set(ALICE).expect(200);
    expect(shown.body.audit).toMatchObject({ resolution: 'reject', auditor: { id: 'alice' } });
  });

  it('lets exactly one of two concurrent auditors win; the other gets 409 conflict', async () => {
    const id = await claim(0.05);
    const replies = await Promise.all([
      http().post(`/judgment/records/${id}/audit`).set(ALICE).send({ resolution: 'approve' }),
      http().post(`/judgment/records/${id}/audit`).set(BOB).send({ resolution: 'reject' }),
    ]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
    const lost = replies.find((reply) => reply.status === 409)!;
    expect(envelope(lost.body)).toMatchObject({ code: 'conflict', details: { type: 'InvalidResolution' } });
    expect(envelope(lost.body).message).toContain('already audited');
  });

  it('answers 404 for an unknown record, 409 for one not sampled, 400 for a missing resolution, 403 for nobody', async () => {
    const missing = await http().post('/judgment/records/99999999/audit').set(ALICE).send({ resolution: 'approve' });
    expect(missing.status).toBe(404);
    expect(envelope(missing.body).code).toBe('not_found');

    const inReview = await claim(0.5);
    const notSampled = await http()
      .post(`/judgment/records/${inReview}/audit`)
      .set(ALICE)
      .send({ resolution: 'approve' });
    expect(notSampled.status).toBe(409);
    expect(envelope(notSampled.body).message).toContain('not sampled for an audit');

    const id = await claim(0.05);
    const blank = await http().post(`/judgment/records/${id}/audit`).set(ALICE).send({}).expect(400);
    expect(envelope(blank.body).details.fields).toHaveProperty('resolution');
    const anonymous = await http().post(`/judgment/records/${id}/audit`).send({ resolution: 'approve' });
    expect(anonymous.status).toBe(403);
    expect(envelope(anonymous.body).code).toBe('forbidden');
  });
});
