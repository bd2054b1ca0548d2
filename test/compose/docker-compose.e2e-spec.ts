// docker-compose.yml, checked by structure (no Docker engine runs in CI): the services, their healthchecks and
// start order, and an environment that matches what the apps read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { judgmentOptionsFromEnv } from 'nestjs-judgment';
import { parse } from 'yaml';
import { supportDeskConfig } from '../../apps/support-desk/src/config/support-desk.config';

const ROOT = join(__dirname, '..', '..');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;

/** `${NAME:-default}` as docker compose interpolates it when NAME is not set in the shell. */
function interpolated(environment: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).map(([name, value]) => [
      name,
      String(value).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, (_, fallback: string) => fallback),
    ]),
  );
}

it("the stack has PostgreSQL, Redis, the Jev simulator, the simulator's OpenAI mode, the HTTP app and its worker", () => {
  expect(Object.keys(services).sort()).toEqual([
    'app',
    'jev-simulator',
    'openai-simulator',
    'postgres',
    'redis',
    'worker',
  ]);
  expect(services.app.command).toEqual(['node', '-r', './scripts/register.js', 'apps/support-desk/src/main.ts']);
  expect(services.worker.command).toEqual(['node', '-r', './scripts/register.js', 'apps/support-desk/src/worker.ts']);
  for (const simulator of ['jev-simulator', 'openai-simulator']) {
    expect(services[simulator].command).toEqual([
      'node',
      '-r',
      './scripts/register.js',
      'libs/judgment/src/simulator/main.ts',
    ]);
  }
});

it('every dependency is waited for until healthy, and has a healthcheck', () => {
  const edges = Object.entries(services).flatMap(([name, service]) =>
    Object.entries(service.depends_on ?? {}).map(([target, { condition }]) => ({ name, target, condition })),
  );
  expect(edges.map(({ name, target }) => `${name}→${target}`).sort()).toEqual([
    'app→jev-simulator',
    'app→openai-simulator',
    'app→postgres',
    'app→redis',
    'worker→app',
    'worker→jev-simulator',
    'worker→openai-simulator',
    'worker→postgres',
    'worker→redis',
  ]);
  for (const { target, condition } of edges) {
    expect(condition).toBe('service_healthy');
    expect(services[target].healthcheck?.test.length).toBeGreaterThan(0);
  }
});

it('the app publishes the port it listens on and checks for health; the worker publishes none', () => {
  const env = interpolated(services.app.environment);
  expect(services.app.ports).toEqual([`${env.PORT}:${env.PORT}`]);
  expect(services.app.healthcheck!.test.join(' ')).toContain(`http://127.0.0.1:${env.PORT}/health`);
  expect(services.worker.ports).toBeUndefined();
});

it('the app and the worker share one environment that points at the compose services', () => {
  expect(services.worker.environment).toEqual(services.app.environment);
  const env = interpolated(services.app.environment);
  const config = supportDeskConfig(env);
  const postgres = interpolated(services.postgres.environment);
  const database = new URL((config.database as { url: string }).url);
  expect(config.database.type).toBe('postgres');
  expect(database.host).toBe('postgres:5432');
  expect(database.pathname).toBe(`/${postgres.POSTGRES_DB}`);
  expect(decodeURIComponent(database.username)).toBe(postgres.POSTGRES_USER);
  expect(decodeURIComponent(database.password)).toBe(postgres.POSTGRES_PASSWORD);
  expect(new URL((config.queue!.connection as { url: string }).url).host).toBe('redis:6379');

  const simulator = interpolated(services['jev-simulator'].environment);
  const jev = judgmentOptionsFromEnv(env).engines!.jev;
  expect(jev.url).toBe(`http://jev-simulator:${simulator.JEV_SIMULATOR_PORT}`);
  expect(jev.key).toBe(simulator.JEV_SIMULATOR_KEY);
  expect(jev.model).toBe(simulator.JEV_SIMULATOR_MODEL);
  expect(services['jev-simulator'].ports).toEqual([`${simulator.JEV_SIMULATOR_PORT}:${simulator.JEV_SIMULATOR_PORT}`]);
  expect(simulator.JEV_SIMULATOR_HOST).toBe('0.0.0.0');

  // post-moderation's first tier: the openai connection, on the simulator's OpenAI mode.
  const openAiSimulator = interpolated(services['openai-simulator'].environment);
  const openai = judgmentOptionsFromEnv({ ...env, JUDGMENT_ENGINE: 'openai' }).engines!.openai;
  expect(openAiSimulator.JEV_SIMULATOR_MODE).toBe('openai');
  expect(openai.url).toBe(`http://openai-simulator:${openAiSimulator.JEV_SIMULATOR_PORT}/v1`);
  expect(openai.key).toBe(openAiSimulator.JEV_SIMULATOR_KEY);
  expect(openai.model).toBe(openAiSimulator.JEV_SIMULATOR_MODEL);
  expect(services['openai-simulator'].ports).toEqual([
    `${openAiSimulator.JEV_SIMULATOR_PORT}:${openAiSimulator.JEV_SIMULATOR_PORT}`,
  ]);
  expect(services['openai-simulator'].healthcheck!.test.join(' ')).toContain(
    `http://127.0.0.1:${openAiSimulator.JEV_SIMULATOR_PORT}/health`,
  );
  expect(openAiSimulator.JEV_SIMULATOR_HOST).toBe('0.0.0.0');
});

it('every variable the compose file sets is documented in the README configuration table', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const documented = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map((match) => match[1]));
  const set = ['app', 'worker', 'jev-simulator', 'openai-simulator'].flatMap((name) =>
    Object.keys(services[name].environment ?? {}),
  );
  expect(set.filter((name) => !documented.has(name))).toEqual([]);
});

it('the Node services build from node:20 with npm ci', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  expect(dockerfile).toMatch(/^FROM node:20$/m);
  expect(dockerfile).toMatch(/^RUN npm ci\b/m);
  for (const name of ['app', 'worker', 'jev-simulator', 'openai-simulator']) expect(services[name].build).toBe('.');
});
