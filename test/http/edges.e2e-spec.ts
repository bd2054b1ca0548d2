// The Review HTTP adapter at its edges (issue 17, item 10): strict record ids, ids past the column's range, JSON-only
// bodies (no cross-site form posts), bodies too deep or with a __proto__ key — each answered in the envelope.
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
