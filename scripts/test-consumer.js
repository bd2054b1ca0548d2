#!/usr/bin/env node
// `npm run test:consumer` — the proof that a fresh Nest app can adopt the package as a user would. It packs the
// library, creates a CommonJS app and an ESM app ("type": "module", module nodenext) in a temporary folder outside
// the repository, installs the tarball and the peers with the README's own Installation commands (under
// --strict-peer-deps, so the docs cannot drift), compiles each app with `tsc --strict`, runs its Jest test (the fake
// Judge, with the README's Jest config), then runs it against PostgreSQL (schema from the shipped migrations), Redis
// and the packaged Jev simulator: a Judgment of a feature module assessed inline and through the queue by a separate
// worker process, each Review seen by an @OnEvent listener, and `judgment status` through the bin. The files the
// generators write (make:judgment, make:decision) are compiled with the app.
// Uses its own databases (judgment_consumer_cjs, judgment_consumer_esm) and Redis prefixes; KEEP_CONSUMER_APPS=1
// leaves the apps in place for a look.
const assert = require('node:assert/strict');
const { execFileSync, spawn } = require('node:child_process');
const { setTimeout: sleep } = require('node:timers/promises');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const IORedis = require('ioredis');
const { Client } = require('pg');
const { packLibrary } = require('./pack-library');

const ROOT = path.join(__dirname, '..');
const FIXTURES = path.join(ROOT, 'test', 'package', 'fixtures');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const { version } = require('../libs/judgment/package.json');
/** The tarball as the README's Installation names it (in the app's folder). */
const TARBALL_IN_README = `./nestjs-judgment-${version}.tgz`;
/** Flags added to each README install line: the strict peer check of issue 12, and no network chatter. */
const INSTALL_FLAGS = ['--strict-peer-deps', '--no-audit', '--no-fund', '--prefer-offline'];
/** How long a started process may take to say it is ready, or a queued job to reach Review. */
const DEADLINE_MS = 90_000;
const FLAVOURS = [
  { name: 'cjs', jestConfig: 'jest.config.js', status: ['--app', 'dist/app.module.js#AppModule', 'status'] },
  // The ESM app names its module in package.json ("judgment": { "app": ... }), so the bin needs no --app.
  { name: 'esm', jestConfig: 'jest.config.cjs', status: ['status'] },
];

/** The text of a README section: from its heading to the next heading of the same level. */
function readmeSection(heading) {
  const level = heading.match(/^#+/)[0];
  const start = README.indexOf(`\n${heading}\n`);
  assert.notEqual(start, -1, `the README has no "${heading}" section`);
  const next = README.slice(start + heading.length + 2).search(new RegExp(`^${level} `, 'm'));
  return next === -1 ? README.slice(start) : README.slice(start, start + heading.length + 2 + next);
}

/** The README's fenced blocks of one language in a section. */
function blocks(section, language) {
  return [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]);
}

/** The `npm install` commands of the README's Installation section, with the tarball's real path. */
function installCommands(tarball) {
  const lines = blocks(readmeSection('## Installation'), 'bash')
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.startsWith('npm install '));
  const argv = lines.map((line) => line.split(/\s+/).slice(2));
  assert.ok(
    argv.some((args) => args.includes(TARBALL_IN_README)),
    `the README's Installation no longer installs ${TARBALL_IN_README}`,
  );
  return argv.map((args) => args.map((arg) => (arg === TARBALL_IN_README ? tarball : arg)));
}

/** The Jest config the README documents for a Nest 12 app. */
function jestConfig() {
  const [config] = blocks(readmeSection('### Jest in a Nest 12 app'), 'js');
  assert.ok(config, 'the README shows no Jest config under "### Jest in a Nest 12 app"');
  return config;
}

function log(message) {
  console.log(`[consumer] ${message}`);
}

/** Runs `work` and logs how long it took. */
async function timed(label, work) {
  const started = Date.now();
  const result = await work();
  log(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** Runs a command to completion in `cwd`, its output shown; throws when it exits non-zero. */
function run(command, args, options) {
  execFileSync(command, args, { stdio: 'inherit', ...options });
}

/** A process that keeps running (simulator, worker): its stdout lines are kept to wait on. */
function start(command, args, options) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'inherit'] });
  const label = path.basename(command === process.execPath ? args[0] : command);
  const lines = [];
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const complete = buffered.split('\n');
    buffered = complete.pop();
    for (const line of complete) {
      lines.push(line);
      console.log(`  ${label}> ${line}`);
    }
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    lines,
    exited,
    /** Resolves to the first line `match` accepts; rejects when the process exits first or the deadline passes. */
    async waitFor(what, match) {
      const deadline = Date.now() + DEADLINE_MS;
      let found;
      while ((found = lines.find(match)) === undefined) {
        if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode}) before ${what}`);
        if (Date.now() > deadline) throw new Error(`no ${what} within ${DEADLINE_MS / 1000} s`);
        await sleep(100);
      }
      return found;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The JSON objects among a process's output lines. */
function jsonLines(lines) {
  return lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// The servers the repo's suites use: JUDGMENT_TEST_PG_PORT and JUDGMENT_TEST_REDIS_PORT, as in test/support.
const PG_PORT = Number(process.env.JUDGMENT_TEST_PG_PORT || 5432);
const REDIS_PORT = Number(process.env.JUDGMENT_TEST_REDIS_PORT || 6379);

async function withPostgres(database, work) {
  const client = new Client({ host: '127.0.0.1', port: PG_PORT, user: 'postgres', database });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function recreateDatabase(database) {
  await withPostgres('postgres', async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${database}`);
  });
}

async function clearPrefix(prefix) {
  const redis = new IORedis({ host: '127.0.0.1', port: REDIS_PORT, lazyConnect: true });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

/** Lays out a fresh app: its package.json and tsconfig, the shared sources, and the README's Jest config. */
function createApp(work, flavour) {
  const dir = path.join(work, flavour.name);
  fs.cpSync(path.join(FIXTURES, flavour.name), dir, { recursive: true });
  fs.cpSync(path.join(FIXTURES, 'app'), dir, { recursive: true });
  fs.writeFileSync(path.join(dir, flavour.jestConfig), jestConfig());
  return dir;
}

/** Runs the README's install commands in an app, one after the other, as a user would. */
async function install(dir, flavour, commands) {
  for (const args of commands) {
    log(`${flavour.name}$ npm install ${args.join(' ')}`);
    const npm = spawn('npm', ['install', ...args, ...INSTALL_FLAGS], { cwd: dir, stdio: 'inherit' });
    const code = await new Promise((resolve) => npm.once('exit', resolve));
    if (code !== 0) throw new Error(`${flavour.name}: npm install ${args.join(' ')} exited with ${code}`);
  }
}

/**
 * Runs `judgment make:judgment` and `make:decision` in the app, as the README shows them; the files land in
 * src/generated, which the app's `tsc --strict` then compiles. An ES module app gets relative imports with their .js
 * suffix, a CommonJS one without.
 */
function generate(dir, flavour) {
  const judgment = path.join(dir, 'node_modules', '.bin', 'judgment');
  run(judgment, ['make:judgment', 'GeneratedCheck', '--subject=PostsService', '--dir=src/generated'], { cwd: dir });
  const decision = ['make:decision', 'GeneratedDecision', '--judgment=GeneratedCheck', '--outcome=PostOutcome'];
  run(judgment, [...decision, '--dir=src/generated'], { cwd: dir });
  const written = fs.readFileSync(path.join(dir, 'src', 'generated', 'generated.decision.ts'), 'utf8');
  const suffix = flavour.name === 'esm' ? '.js' : '';
  assert.ok(
    written.includes(`from './generated-check.judgment${suffix}';`),
    `${flavour.name}: make:decision wrote the wrong import of the Judgment:\n${written}`,
  );
}

/** The app against real services: inline and queued assessments, the Reviews they raise, `judgment status`. */
async function runApp(dir, flavour) {
  const database = `judgment_consumer_${flavour.name}`;
  const prefix = `judgment-consumer-${flavour.name}-${process.pid}`;
  await recreateDatabase(database);
  const port = await freePort();
  const bin = (name) => path.join(dir, 'node_modules', '.bin', name);
  const simulator = start(bin('judgment-jev-simulator'), ['--port', String(port)], { cwd: dir });
  const processes = [simulator];
  try {
    const url = `http://127.0.0.1:${port}`;
    await simulator.waitFor('simulator ready', (line) => line.includes(`listening on ${url}`));
    const env = {
      ...process.env,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${PG_PORT}/${database}`,
      REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}`,
      REDIS_PREFIX: prefix,
      TYPESAFE_BASE_URL: url,
      JUDGMENT_LOG: 'false',
    };
    delete env.TYPESAFE_API_KEY; // a connection pointed at a loopback URL needs no key
    delete env.NODE_OPTIONS;

    const worker = start(process.execPath, ['dist/worker.js'], { cwd: dir, env: { ...env, APP_ROLE: 'worker' } });
    processes.push(worker);
    await worker.waitFor('worker ready', (line) => line.includes('"worker":"ready"'));

    // The simulator answers a likelihood written into the text as [[key=p]]: 0.5 is in the Decision's Review band.
    const inline = `Posted inline (${flavour.name}). [[harassing=0.5]]`;
    const queued = `Posted through the queue (${flavour.name}). [[harassing=0.5]]`;
    const api = start(process.execPath, ['dist/main.js', inline, queued], { cwd: dir, env });
    processes.push(api);
    assert.deepEqual(await api.exited, { code: 0, signal: null }, 'the API process failed');
    const said = jsonLines(api.lines);
    // The README's service pattern: a case in Review resolves to an AwaitingReview, which the app's service turns into 'held'.
    assert.equal(
      said.find((line) => line.inline === inline)?.outcome,
      'held',
      'the inline post was not held for Review',
    );
    assert.ok(
      said.some((line) => line.reviewRequested === inline),
      "the API's listener did not see the inline Review",
    );
    assert.equal(typeof said.find((line) => line.queued === queued)?.job, 'string', 'the queued post got no job id');

    const review = JSON.parse(
      await worker.waitFor('ReviewRequested of the queued post', (line) => line.includes('"reviewRequested"')),
    );
    assert.equal(review.reviewRequested, queued);
    assert.equal(review.outcome, 'review');
    await withPostgres(database, async (client) => {
      const { rows } = await client.query(
        'SELECT count(*)::int AS n FROM judgment_assessments WHERE review_requested_at IS NOT NULL',
      );
      assert.equal(rows[0].n, 2, 'both posts should be recorded awaiting Review');
    });

    run(bin('judgment'), flavour.status, { cwd: dir, env });
  } finally {
    for (const child of processes.reverse()) await child.stop();
    await clearPrefix(prefix);
  }
}

async function main() {
  const started = Date.now();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'nestjs-judgment-consumer-'));
  log(`working in ${work}`);
  try {
    const pack = await timed('pack', () => packLibrary(work));
    log(`tarball: ${path.basename(pack.tarball)}, ${pack.size} bytes, ${pack.entryCount} files`);
    const apps = FLAVOURS.map((flavour) => ({ flavour, dir: createApp(work, flavour) }));
    const commands = installCommands(pack.tarball);
    // Installing is most of the test's time, and mostly waiting: both apps install side by side, on npm's one cache.
    await timed('install (README commands, --strict-peer-deps), both apps', () =>
      Promise.all(apps.map(({ flavour, dir }) => install(dir, flavour, commands))),
    );
    for (const { flavour, dir } of apps) {
      await timed(`${flavour.name}: make:judgment and make:decision`, () => generate(dir, flavour));
      await timed(`${flavour.name}: tsc --strict`, () =>
        run(path.join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json', '--strict'], { cwd: dir }),
      );
      await timed(`${flavour.name}: the app's Jest test`, () =>
        run(path.join(dir, 'node_modules', '.bin', 'jest'), ['--ci'], { cwd: dir }),
      );
      await timed(`${flavour.name}: PostgreSQL, Redis, simulator, worker, judgment status`, () => runApp(dir, flavour));
    }
    log(`passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    if (process.env.KEEP_CONSUMER_APPS === '1') log(`kept ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(`[consumer] FAILED: ${error instanceof Error ? error.stack : error}`);
    process.exit(1);
  });
}

module.exports = { FLAVOURS, runApp };
