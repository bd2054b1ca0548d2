/**
 * The demo command (`npm run demo`): seeds refund requests, support tickets and posts, assesses them, prints the
 * Outcomes and the Review queue, resolves one Review, prints a summary and exits. `npm run demo -- --serve` (or
 * DEMO_SERVE=1) then keeps the HTTP API up. With no services configured it runs on an in-memory SQLite database,
 * the inline queue and the Jev simulator started in-process.
 */
import 'reflect-metadata';
import { type INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type Assessment,
  AssessmentRecords,
  type AssessmentRecord,
  type Decided,
  decidedOutcome,
  Judge,
  type Judgment,
} from 'nestjs-judgment';
import { EngineSetup } from './config/engine-setup';
import { type SupportDeskConfig, supportDeskConfig } from './config/support-desk.config';
import { DEMO_POSTS, DEMO_REFUNDS, DEMO_TICKETS } from './demo/demo-cases';
import { PostModeration } from './moderation/post-moderation.judgment';
import { PostsService } from './moderation/posts.service';
import { RefundAbuse } from './refunds/refund-abuse.judgment';
import { RefundOutcome } from './refunds/refund.decision';
import { RefundsService } from './refunds/refunds.service';
import { AGENT_COOKIE, AGENT_HEADER } from './review/agents';
import { SupportDeskModule } from './support-desk.module';
import { TicketsService } from './tickets/tickets.service';

/** One assessed case, as the demo prints it. */
interface CaseRow {
  readonly subject: string;
  readonly answers: string;
  readonly outcome: string;
  readonly status: string;
}

const out = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const serve = process.argv.includes('--serve') || ['1', 'true', 'yes'].includes(process.env.DEMO_SERVE ?? '');
  const config = supportDeskConfig(process.env, { sqlitePath: ':memory:' });
  const app = await NestFactory.create(SupportDeskModule.forRoot(config, 'all'), {
    logger: serve ? ['log', 'warn', 'error'] : ['warn', 'error'],
  });
  app.enableShutdownHooks();
  await app.init();

  printSetup(app, config);
  const moderated = await posts(app);
  const rows = [...(await refunds(app)), ...(await tickets(app)), ...moderated.rows];
  printTable('Outcomes', ['Case', 'Answers', 'Outcome', 'Status after the Actions'], rows.map(Object.values));
  printTable(
    'Escalation cascade of post-moderation (openai first, then jev; one record per tier asked)',
    ['Case', 'Path'],
    moderated.paths,
  );

  const records = app.get(AssessmentRecords);
  const awaiting = await records.awaitingReview();
  printTable(
    'Review queue (Outcomes that need a person)',
    ['Record', 'Judgment', 'Subject', 'Automatic Outcome'],
    awaiting.map((r) => [`#${r.id}`, r.judgment, `${r.subjectType} #${r.subjectId}`, String(r.outcome)]),
  );

  const resolved = await resolveOne(app, awaiting);
  const left = await records.awaitingReview();
  const judge = app.get(Judge);
  const automatic = rows.length - awaiting.length;
  out();
  out('Summary');
  out(
    `  ${rows.length} cases assessed: ${automatic} decided automatically, ${awaiting.length} sent to Review` +
      `${resolved ? `, 1 resolved by a reviewer (${left.length} still awaiting)` : ''}.`,
  );
  out(`  Outcomes: ${countOutcomes(rows)}.`);
  out(
    `  Model ${judge.lastModel()}, ${judge.usage()} input tokens; every attempt is recorded in judgment_assessments.`,
  );
  out();

  if (!serve) {
    out('Done. `npm run demo -- --serve` keeps the HTTP API up; `npm test` runs the test suites.');
    await app.close();
    return;
  }
  await app.listen(config.port);
  printServing(config.port);
}

function printSetup(app: INestApplication, config: SupportDeskConfig): void {
  const engine = app.get(EngineSetup);
  const database = config.database;
  const stored =
    database.type === 'better-sqlite3'
      ? `SQLite (${database.database === ':memory:' ? 'in memory' : database.database})`
      : 'PostgreSQL';
  const where = (connection: 'jev' | 'openai') =>
    connection === 'openai'
      ? engine.simulators.openai
        ? ` → the simulator's OpenAI mode in-process at ${engine.engineUrl('openai')} (no OPENAI_BASE_URL set)`
        : ` → ${engine.engineUrl('openai')}`
      : engine.simulators.jev
        ? ` → Jev simulator in-process at ${engine.engineUrl('jev')} (no TYPESAFE_API_KEY set)`
        : ` → ${engine.engineUrl('jev')}`;
  out('Support desk demo — nestjs-judgment');
  out(
    `  Engine:   ${engine.engine}${engine.engine === 'jev' || engine.engine === 'openai' ? where(engine.engine) : ''}`,
  );
  out(`  Cascade:  post-moderation asks openai (${engine.engineUrl('openai')}) first, then jev`);
  out(`  Database: ${stored}`);
  out(`  Queue:    ${config.queue ? `BullMQ (prefix ${config.queue.prefix})` : 'inline (no REDIS_URL set)'}`);
}

async function refunds(app: INestApplication): Promise<CaseRow[]> {
  const service = app.get(RefundsService);
  const rows: CaseRow[] = [];
  for (const { dispatch, ...input } of DEMO_REFUNDS) {
    const refund = await service.create(input);
    const label = `Refund #${refund.id} ${refund.item} (€${refund.amountEur}, ${refund.refundsThisYear} this year)`;
    const { assessment, outcome } = dispatch
      ? await dispatched(app, () => service.dispatch(refund), refund, RefundAbuse)
      : await assessed(service.assess(refund));
    const answers =
      `abusive ${fixed(assessment.likelihood('abusive').probability)}, ` +
      `credibility ${fixed(assessment.rating('credibility').expected)}/3` +
      (dispatch ? ' (dispatched)' : '');
    rows.push({ subject: label, answers, outcome: String(outcome), status: (await service.find(refund.id)).status });
  }
  return rows;
}

async function tickets(app: INestApplication): Promise<CaseRow[]> {
  const service = app.get(TicketsService);
  const rows: CaseRow[] = [];
  for (const input of DEMO_TICKETS) {
    const ticket = await service.create(input);
    const { assessment, outcome } = await assessed(service.assess(ticket));
    const department = assessment.classification('department');
    const answers =
      `department ${department.label ?? 'none'} (confidence ${fixed(department.confidence)}), ` +
      `severity ${fixed(assessment.rating('severity').expected)}/3`;
    const after = await service.find(ticket.id);
    rows.push({
      subject: `Ticket #${ticket.id} ${ticket.subject}`,
      answers,
      outcome: String(outcome),
      status: after.department ? `${after.status} to ${after.department}` : after.status,
    });
  }
  return rows;
}

async function posts(app: INestApplication): Promise<{ rows: CaseRow[]; paths: string[][] }> {
  const service = app.get(PostsService);
  const records = app.get(AssessmentRecords);
  const rows: CaseRow[] = [];
  const paths: string[][] = [];
  for (const input of DEMO_POSTS) {
    const post = await service.create(input);
    const { outcome } = await assessed(service.assess(post));
    // The answers of the tier that decided: the last record of the cascade (rebuilt into an Assessment).
    const decidedBy = (await records.latest(post, PostModeration))!;
    const harms = (await records.rebuild<PostModeration>(decidedBy)).likelihoodSet('harms');
    const flagged = harms.labelsAbove(0.4);
    const answers = `worst harm ${fixed(harms.max().probability)}${flagged.length ? ` (${flagged.join(', ')})` : ''}`;
    rows.push({
      subject: `Post #${post.id} by ${post.author}`,
      answers,
      outcome: String(outcome),
      status: (await service.find(post.id)).status,
    });
    paths.push([`Post #${post.id} by ${post.author}`, cascadePath(await records.forSubject(post))]);
  }
  return { rows, paths };
}

/** The tiers a case went through, from their records: `openai: hold (Review band) → jev: remove`. */
function cascadePath(records: readonly AssessmentRecord[]): string {
  const steps = [...records]
    .sort((a, b) => a.id - b.id)
    .map((record) => {
      const connection = (record.provenanceDetails?.cascade as { connection?: string } | undefined)?.connection;
      const escalated = record.decisionTrace?.escalated !== undefined;
      const review = record.reviewRequestedAt !== null ? ' → Review' : '';
      return `${connection ?? record.engine}: ${record.outcome}${escalated ? ' (Review band)' : review}`;
    });
  return steps.join(' → ');
}

/** An inline assessment and its Outcome as the summary prints it (the Decision's Outcome, in Review or not). */
async function assessed<J extends Judgment>(
  judged: Promise<{ assessment: Assessment<J>; decided: Decided }>,
): Promise<{ assessment: Assessment<J>; outcome: string }> {
  const { assessment, decided } = await judged;
  return { assessment, outcome: String(decidedOutcome(decided)) };
}

/**
 * Dispatches a Judgment and reads its decided record back (inline queue: at once; BullMQ: once the worker decided).
 * The record is rebuilt into an Assessment (Replay) to print its answers.
 */
async function dispatched<J extends Judgment>(
  app: INestApplication,
  dispatch: () => Promise<string>,
  subject: object,
  judgment: new (...args: any[]) => J,
): Promise<{ assessment: Assessment<J>; outcome: string }> {
  const records = app.get(AssessmentRecords);
  await dispatch();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const record = await records.latest(subject, judgment);
    if (record?.outcome) return { assessment: await records.rebuild<J>(record), outcome: record.outcome };
    if (record?.isUnassessed()) throw new Error(`The dispatched ${record.judgment} failed: ${record.failureMessage}`);
    if (Date.now() > deadline)
      throw new Error('The dispatched Judgment was not decided within 30 s: is a worker running?');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resolves the first refund in Review as agent alice (the ResolutionPolicy allows SUPPORT_DESK_AGENTS). */
async function resolveOne(app: INestApplication, awaiting: AssessmentRecord[]): Promise<boolean> {
  const record = awaiting.find((r) => r.judgment === 'refund-abuse');
  if (!record) return false;
  const resolved = await app
    .get(AssessmentRecords)
    .resolve(record, RefundOutcome.Reject, { type: 'agent', id: 'alice' });
  const refund = await app.get(RefundsService).find(Number(record.subjectId));
  out();
  out(
    `Agent alice resolved record #${resolved.id}: automatic Outcome ${resolved.outcome}, Resolution ` +
      `${resolved.resolution}; refund #${refund.id} is now ${refund.status}.`,
  );
  return true;
}

function printServing(port: number): void {
  const base = `http://localhost:${port}`;
  out(`Review page: ${base}/judgment/desk`);
  out(
    `  Open ${base}/agent-login?agent=alice first: it sets the reviewer cookie (${AGENT_COOKIE}=alice) and opens the`,
  );
  out(
    `  page; from curl, send the header '${AGENT_HEADER}: alice' instead. Agents: SUPPORT_DESK_AGENTS (default alice,bob).`,
  );
  out(`HTTP API on ${base} (Ctrl-C stops it). Try:`);
  out(`  curl -s -X POST ${base}/refunds -H 'content-type: application/json' \\`);
  out(
    `    -d '{"item":"Kettle","amountEur":35,"explanation":"It leaks from the base. [[abusive=0.05]] [[credibility=3:0.8]]"}'`,
  );
  out(`  curl -s -X POST ${base}/refunds/1/dispatch`);
  out(`  curl -s ${base}/judgment/reviews -H '${AGENT_HEADER}: alice'`);
  out(`  curl -s ${base}/judgment/records/2 -H '${AGENT_HEADER}: alice'`);
  out(`  curl -s -X POST ${base}/judgment/records/2/resolve -H '${AGENT_HEADER}: alice' \\`);
  out(`    -H 'content-type: application/json' -d '{"resolution":"approve"}'`);
}

function printTable(title: string, header: string[], rows: string[][]): void {
  out();
  out(`${title}:`);
  if (rows.length === 0) {
    out('  (none)');
    return;
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => `  ${cells.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`.trimEnd();
  out(line(header));
  out(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) out(line(row));
}

function countOutcomes(rows: CaseRow[]): string {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.outcome, (counts.get(row.outcome) ?? 0) + 1);
  return [...counts].map(([outcome, count]) => `${count} ${outcome}`).join(', ');
}

function fixed(value: number): string {
  return value.toFixed(2);
}

main().catch((error: unknown) => {
  new Logger('Demo').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
