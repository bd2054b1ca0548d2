// The README's first command, `npm run demo`, as a real process on a fresh clone with no services configured, and
// the other entry points of the demo app.
import { freePort } from '../support/service-port';
import { freshCloneEnv, printed, run, start, stop, stopAll } from './support';

afterEach(() => stopAll());

describe('npm run demo', () => {
  it('seeds cases, assesses them, prints the Outcomes and the Review queue, and exits 0 with a summary', async () => {
    const { code, stdout, stderr } = await run('npm', ['run', 'demo'], freshCloneEnv());
    expect({ code, stderr: stderr.replace(/^npm (notice|warn).*$/gm, '').trim() }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/Engine: +jev → Jev simulator in-process at http:\/\/127\.0\.0\.1:\d+/);
    expect(stdout).toContain('Database: SQLite (in memory)');
    expect(stdout).toContain('Queue:    inline');
    expect(stdout).toMatch(/Refund #1 Wireless headphones .* approve +approved/);
    expect(stdout).toMatch(/Refund #2 Winter jacket .* escalate +in_review/);
    expect(stdout).toMatch(/Refund #3 Gaming laptop .* reject +rejected/);
    expect(stdout).toMatch(/Ticket #3 Your office dog .* triage +triage/);
    expect(stdout).toMatch(/Post #2 by promo4u .* remove +removed/);
    // post-moderation's escalation cascade: the cheap openai tier first, then jev, one record per tier asked.
    expect(stdout).toMatch(/Cascade: +post-moderation asks openai \(http:\/\/127\.0\.0\.1:\d+\/v1\) first, then jev/);
    expect(stdout).toMatch(/Post #1 by marta +openai: publish$/m);
    expect(stdout).toMatch(/Post #2 by promo4u +openai: hold \(Review band\) → jev: remove$/m);
    expect(stdout).toMatch(/Post #3 by kev +openai: hold \(Review band\) → jev: hold → Review$/m);
    const queue = stdout.slice(stdout.indexOf('Review queue'), stdout.indexOf('Summary'));
    expect(queue.match(/^ {2}#\d+ /gm)).toHaveLength(4);
    expect(stdout).toContain('10 cases assessed: 6 decided automatically, 4 sent to Review');
    expect(stdout).toContain('Done.');
  });

  it('JUDGMENT_ENGINE=openai runs the same cases through the openai driver against the OpenAI-mode simulator', async () => {
    const { code, stdout, stderr } = await run('npm', ['run', 'demo'], freshCloneEnv({ JUDGMENT_ENGINE: 'openai' }));
    expect({ code, stderr: stderr.replace(/^npm (notice|warn).*$/gm, '').trim() }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/Engine: +openai → the simulator's OpenAI mode in-process at http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(stdout).toMatch(/Refund #1 Wireless headphones .* abusive 0\.04, .* approve +approved/);
    expect(stdout).toMatch(/Refund #3 Gaming laptop .* abusive 0\.92, .* reject +rejected/);
    expect(stdout).toMatch(/Ticket #1 Charged twice for March +department billing .* routed to billing/);
    expect(stdout).toMatch(/Ticket #3 Your office dog +department none .* triage +triage/);
    expect(stdout).toMatch(/Post #2 by promo4u +worst harm 0\.96 \(spam\) +remove +removed/);
    expect(stdout).toContain('10 cases assessed: 6 decided automatically, 4 sent to Review');
    expect(stdout).toMatch(/Model sim-4o-2026-09-17, \d+ input tokens/);
  });

  it('`npm run demo -- --serve` keeps the HTTP API up after the summary', async () => {
    const port = await freePort();
    const demo = start('npm', ['run', 'demo', '--', '--serve'], freshCloneEnv({ PORT: String(port) }));
    try {
      await printed(demo, `HTTP API on http://localhost:${port}`);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(await health.json()).toEqual({ status: 'ok' });
      const reviews = await fetch(`http://127.0.0.1:${port}/judgment/reviews`, { headers: { 'x-agent': 'alice' } });
      expect(((await reviews.json()) as { data: unknown[] }).data).toHaveLength(3);
      await printed(demo, `Review page: http://localhost:${port}/judgment/desk`);
      const login = await fetch(`http://127.0.0.1:${port}/agent-login?agent=alice`, { redirect: 'manual' });
      expect(login.status).toBe(303);
      const cookie = login.headers.get('set-cookie')!.split(';')[0];
      expect(cookie).toBe('agent=alice');
      const page = await fetch(`http://127.0.0.1:${port}/judgment/desk`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<h1>Awaiting Review</h1>');
    } finally {
      await stop(demo);
    }
  });

  it('DEMO_SERVE=1 keeps the HTTP API up too', async () => {
    const port = await freePort();
    const demo = start('node', ['scripts/demo.js'], freshCloneEnv({ PORT: String(port), DEMO_SERVE: '1' }));
    try {
      await printed(demo, `HTTP API on http://localhost:${port}`);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      await stop(demo);
    }
  });
});

describe('the demo app entry points', () => {
  it('the worker refuses to start without a queue, saying which variable to set', async () => {
    const { code, stderr, stdout } = await run(
      'node',
      ['-r', './scripts/register.js', 'apps/support-desk/src/worker.ts'],
      freshCloneEnv(),
    );
    expect(code).toBe(1);
    expect(stdout + stderr).toContain('The worker needs a queue: set REDIS_URL (or REDIS_HOST)');
  });

  it('the CLI (`status`) reports the jev connection pointed at the in-process simulator, configured with no key', async () => {
    const { code, stdout } = await run(
      'node',
      ['-r', './scripts/register.js', 'apps/support-desk/src/cli.ts', 'status', '--json'],
      freshCloneEnv({ SQLITE_PATH: ':memory:' }),
    );
    expect(code).toBe(0);
    const status = JSON.parse(stdout);
    expect(status).toMatchObject({ default: 'jev', configured: true });
    expect(status.connections[0]).toMatchObject({ connection: 'jev', keyPresent: false, model: 'jev-1.13.0' });
    expect(status.connections[0].url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
