// The Review HTTP adapter at its edges (issue 17, item 10): strict record ids, ids past the column's range, JSON-only
// bodies (no cross-site form posts), bodies too deep, with a __proto__ key, malformed or too large, unknown routes and
// wrong methods under the adapter's path — each answered in the envelope, while the app's own routes keep the app's
// (here Nest's default) answers.
// The support desk's API on real PostgreSQL (its own database) and Redis (its own prefix).
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { databaseUrl, recreateDatabase } from '../support/postgres';
import { REDIS_URL, clearPrefix } from '../support/redis';
import { startApi, uniquePrefix } from './support';

const DATABASE = 'judgment_http_harden';
const ALICE = { 'x-agent': 'alice' };
let api: INestApplication;
let prefix: string;

beforeAll(async () => {
  await recreateDatabase(DATABASE);
  prefix = uniquePrefix('judgment-http-harden');
  api = await startApi({
    DATABASE_URL: databaseUrl(DATABASE),
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    TYPESAFE_API_KEY: 'http-harden-key',
    TYPESAFE_BASE_URL: 'http://127.0.0.1:9',
    JUDGMENT_LOG: 'false',
    SUPPORT_DESK_AGENTS: 'alice',
  });
});

afterAll(async () => {
  await api?.close();
  if (prefix) await clearPrefix(prefix);
});

const http = () => request(api.getHttpServer());

function code(body: unknown): string {
  expect(Object.keys(body as object)).toEqual(['error']);
  return (body as { error: { code: string } }).error.code;
}

it('ids past the id column (2^31 and beyond) are not found, not a server error', async () => {
  for (const id of ['2147483648', '99999999999999999999']) {
    const { body } = await http().get(`/judgment/records/${id}`).set(ALICE).expect(404);
    expect(code(body)).toBe('not_found');
  }
});

it('lenient ids (hex, exponent, padded, signed) are refused as invalid', async () => {
  for (const id of ['0x10', '1e3', '%207', '+7', '7.0', '007']) {
    const { body } = await http().get(`/judgment/records/${id}`).set(ALICE).expect(400);
    expect(code(body)).toBe('validation_error');
  }
});

it('resolve accepts only JSON: a form post is refused with 415', async () => {
  const { body } = await http()
    .post('/judgment/records/1/resolve')
    .set(ALICE)
    .type('form')
    .send('resolution=approve')
    .expect(415);
  expect(code(body)).toBe('validation_error');
});

it('a __proto__ key or a 50,000-deep body is refused with 400, not a server error', async () => {
  const post = (raw: string) =>
    http().post('/judgment/records/1/resolve').set(ALICE).set('content-type', 'application/json').send(raw);
  const proto = await post('{"resolution":"approve","__proto__":{"isAdmin":true}}').expect(400);
  expect(code(proto.body)).toBe('validation_error');
  const deep = await post(`{"resolution":"approve","x":${'['.repeat(50_000)}${']'.repeat(50_000)}}`);
  expect(deep.status).toBe(400);
  expect(code(deep.body)).toBe('validation_error');
});

it('every POST of the JSON API accepts only JSON: form and bodiless posts to claim, renew and release get 415', async () => {
  for (const action of ['claim', 'renew', 'release']) {
    const form = await http().post(`/judgment/records/1/${action}`).set(ALICE).type('form').send('ttl=15m').expect(415);
    expect(code(form.body)).toBe('validation_error');
    const bare = await http().post(`/judgment/records/1/${action}`).set(ALICE).expect(415);
    expect(code(bare.body)).toBe('validation_error');
  }
});

it('a malformed JSON body is a 400 validation_error in the envelope', async () => {
  const { body } = await http()
    .post('/judgment/records/1/resolve')
    .set(ALICE)
    .set('content-type', 'application/json')
    .send('{"resolution": approve')
    .expect(400);
  expect(code(body)).toBe('validation_error');
  expect(body.error.message).toMatch(/not valid JSON/);
});

it('a body over the size limit is a 413 in the envelope', async () => {
  const { body } = await http()
    .post('/judgment/records/1/resolve')
    .set(ALICE)
    .set('content-type', 'application/json')
    .send(JSON.stringify({ resolution: 'approve', note: 'x'.repeat(200_000) }))
    .expect(413);
  expect(code(body)).toBe('validation_error');
  expect(body.error.message).toMatch(/too large/);
});

it('unknown routes and wrong methods under /judgment are 404 not_found in the envelope', async () => {
  const cases: Array<[string, string]> = [
    ['get', '/judgment/nothing-here'],
    ['get', '/judgment/records/1/nothing-here'],
    ['get', '/judgment/records/1/resolve'],
    ['delete', '/judgment/records/1'],
    ['put', '/judgment/reviews'],
    ['post', '/judgment'],
  ];
  for (const [method, path] of cases) {
    const { body } = await request(api.getHttpServer())[method as 'get'](path).set(ALICE).expect(404);
    expect(code(body)).toBe('not_found');
    expect(body.error.message).toContain(path);
  }
});

it("the app's own routes keep the app's answers: its 404s and its malformed bodies are not the adapter's", async () => {
  const missing = await http().get('/no-such-page').expect(404);
  expect(missing.body).toMatchObject({ statusCode: 404 });
  expect(missing.body.error).not.toHaveProperty('code');
  const malformed = await http()
    .post('/tickets')
    .set('content-type', 'application/json')
    .send('{"subject":')
    .expect(400);
  expect(malformed.body).toMatchObject({ statusCode: 400 });
  const large = await http()
    .post('/tickets')
    .set('content-type', 'application/json')
    .send(JSON.stringify({ subject: 'x'.repeat(200_000) }))
    .expect(413);
  expect(large.body).toMatchObject({ statusCode: 413 });
  // A path that only begins like the adapter's is the app's too.
  const lookalike = await http().get('/judgments/reviews').expect(404);
  expect(lookalike.body).toMatchObject({ statusCode: 404 });
});
